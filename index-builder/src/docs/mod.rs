//! Reading a Docusaurus docs folder exactly as Docusaurus 3 does: which files are docs,
//! their titles, URLs and heading anchors, and their text split into heading sections.
//!
//! Entry points: [`read_book`] walks a folder; [`read_page`] reads one file's text (pure,
//! for tests and fuzzing). Module map:
//! * `front_matter` — gray-matter style split + YAML fields
//! * `route` / `number_prefix` — doc id, slug and URL rules
//! * `title` — Docusaurus' "content title" (leading H1)
//! * `mdx` — the `markdown` crate's MDX/CommonMark parse, plus the two Docusaurus pre-passes
//!   it lacks (`mdx-code-block` unwrapping, `:::` admonitions)
//! * `sections` — the syntax tree split into heading sections with readable text
//! * `anchors` / `slugger` — heading ids (github-slugger, `{#custom-id}`, `{/* #custom-id */}`)
//! * `category` — `_category_` labels and page modules
//! * `walk` — the folder walk

mod anchors;
mod category;
mod error;
mod front_matter;
mod mdx;
mod number_prefix;
mod props;
mod route;
mod sections;
mod slugger;
mod title;
mod walk;

pub use category::CategoryLabels;
pub use error::{DocsError, Warning};
pub use slugger::Slugger;
pub use walk::read_book;

use std::borrow::Cow;

/// How the site is configured (the parts of `docusaurus.config` that change URLs/parsing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOptions {
    /// Docs plugin `routeBasePath` (default `"/docs"`; `"/"` for docs-only sites).
    pub route_base_path: String,
    /// Site `baseUrl` (default `"/"`).
    pub base_url: String,
    /// Site `trailingSlash`: `None` leaves URLs as Docusaurus computes them (index docs end
    /// with `/`, others do not); `Some(true)` adds a slash, `Some(false)` removes it.
    pub trailing_slash: Option<bool>,
    /// Site `markdown.format`.
    pub markdown_format: MarkdownFormat,
    /// Whether a heading's trailing comment `{/* #id */}` is its id, as Docusaurus 3.10 and
    /// later read it (before, the comment's text is slugged with the heading's).
    pub comment_heading_ids: bool,
    /// Docusaurus' `markdown.anchors.maintainCase`: anchors keep the heading's case.
    pub anchors_maintain_case: bool,
    /// The docs Docusaurus published and the permalink it gave each (relative path in the docs
    /// folder → permalink, baseUrl included), when the plugin knows them: only those files are
    /// read (a doc plugin's `include`/`exclude` decide, not this builder's guess), and their
    /// permalinks are cited instead of URLs computed from the file's path, slug and id, so a
    /// setting the builder does not model (`numberPrefixParser`, a plugin rewriting slugs)
    /// cannot make a citation point at a page that does not exist.
    pub permalinks: Option<std::collections::BTreeMap<String, String>>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            route_base_path: "/docs".to_string(),
            base_url: "/".to_string(),
            trailing_slash: None,
            markdown_format: MarkdownFormat::Mdx,
            comment_heading_ids: true,
            anchors_maintain_case: false,
            permalinks: None,
        }
    }
}

/// Docusaurus `markdown.format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MarkdownFormat {
    /// Every `.md`/`.mdx` file is MDX (Docusaurus 3 default).
    #[default]
    Mdx,
    /// `.mdx` files are MDX, `.md` files CommonMark (`import` lines and `{braces}` are text).
    Detect,
    /// Every file is CommonMark.
    Md,
}

impl std::str::FromStr for MarkdownFormat {
    type Err = String;

    /// `mdx`, `detect` or `md`, as written in `docusaurus.config` (`markdown.format`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "mdx" => Ok(Self::Mdx),
            "detect" => Ok(Self::Detect),
            "md" => Ok(Self::Md),
            other => Err(format!(
                "unknown markdown format {other:?} (expected \"mdx\", \"detect\" or \"md\")"
            )),
        }
    }
}

/// All published docs of a folder, plus what looked wrong while reading it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Book {
    /// Published pages (drafts excluded), sorted by `path`.
    pub pages: Vec<Page>,
    /// Problems that did not stop reading, in path order.
    pub warnings: Vec<Warning>,
    /// Paths of `draft: true` docs, which a production build does not publish.
    pub drafts: Vec<String>,
}

/// One doc page.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// Path relative to the docs folder, `/`-separated (e.g. `guides/docs/sidebar/items.mdx`).
    pub path: String,
    /// Full site path: baseUrl + routeBasePath + slug, normalised, no anchor
    /// (e.g. `/docs/sidebar/items`).
    pub url: String,
    /// Docusaurus doc id (e.g. `guides/docs/sidebar/items`), used by sidebars and links.
    pub id: String,
    /// Front matter `title`, else the leading `# H1`, else the id's last segment.
    pub title: String,
    /// Label of the top-level folder (`_category_` label, else its humanised name); pages
    /// at the docs root use their own title.
    pub module: String,
    /// Front matter `description`.
    pub description: Option<String>,
    /// Front matter `tags` (labels).
    pub tags: Vec<String>,
    /// `false` when front matter says `chat: false`, or `unlisted: true` without `chat: true`
    /// (keep the page out of the chat index).
    pub chat: bool,
    /// Front matter `unlisted: true` (published, but hidden from sidebar and search).
    pub unlisted: bool,
    /// Front matter `draft: true` (not published by production builds).
    pub draft: bool,
    /// Front matter `sidebar_label`.
    pub sidebar_label: Option<String>,
    /// Front matter `sidebar_position`, else the file name's number prefix.
    pub sidebar_position: Option<f64>,
    /// The page's text split at headings, in document order.
    pub sections: Vec<Section>,
}

/// A heading and the text under it (up to the next heading of any level).
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// Plain heading text; `None` for the page top (text before the first heading).
    pub heading: Option<String>,
    /// The heading's `id` on the rendered page (`url#anchor`); `None` for the page top.
    pub anchor: Option<String>,
    /// 0 for the page top; 2..=6 for headings, or 1 for an `# H1` that is not the title.
    pub level: u8,
    /// Page title, then the enclosing headings, then this heading.
    pub hierarchy: Vec<String>,
    /// Readable text: MDX/HTML removed, links as their text, code kept as fenced blocks.
    pub text: String,
    /// Whether `text` contains a fenced code block.
    pub has_code: bool,
    /// The heading is one inline code span (`` ### `future` ``): a name from the code.
    pub heading_is_code: bool,
}

/// Read one doc from its text. Pure: no file system access. `rel_path` is the path
/// relative to the docs folder (`/`-separated, with extension); `categories` gives folder
/// labels for [`Page::module`].
///
/// Returns the page and the warnings found in it. Errors only for what Docusaurus itself
/// refuses: a front matter `id` containing `/`, or a slug that is not a valid path.
pub fn read_page(
    rel_path: &str,
    source: &str,
    categories: &CategoryLabels,
    opts: &ReadOptions,
) -> Result<(Page, Vec<Warning>), DocsError> {
    let mut warnings = Vec::new();
    let source = normalize_newlines(source.strip_prefix('\u{feff}').unwrap_or(source));
    let split = front_matter::split(&source, rel_path, &mut warnings);
    let fm = match split.yaml {
        Some(yaml) => front_matter::parse(yaml, split.yaml_line, rel_path, &mut warnings),
        None => front_matter::FrontMatter::default(),
    };

    let route = route::doc_route(&route::RouteInput {
        rel_path,
        fm_id: fm.id.as_deref(),
        fm_slug: fm.slug.as_deref(),
        parse_number_prefixes: fm.parse_number_prefixes.unwrap_or(true),
    })
    .map_err(|e| match e {
        route::RouteError::IdWithSlash(id) => DocsError::InvalidId {
            path: rel_path.to_string(),
            line: fm.line_of("id").unwrap_or(1),
            id,
        },
        route::RouteError::InvalidSlug(slug) => DocsError::InvalidSlug {
            path: rel_path.to_string(),
            line: fm.line_of("slug").unwrap_or(1),
            slug,
        },
    })?;
    let url = match opts.permalinks.as_ref().and_then(|p| p.get(rel_path)) {
        Some(permalink) => route::permalink_url(permalink, &opts.base_url, opts.trailing_slash),
        None => route::doc_url(
            &route.slug,
            &opts.base_url,
            &opts.route_base_path,
            opts.trailing_slash,
        ),
    };

    let content_title = title::content_title(split.body);
    let base_id = route.id.rsplit('/').next().unwrap_or(&route.id);
    let title = fm
        .title
        .clone()
        .or_else(|| content_title.clone())
        .unwrap_or_else(|| base_id.to_string());

    let syntax = match opts.markdown_format {
        MarkdownFormat::Detect if !rel_path.ends_with(".mdx") => mdx::Syntax::CommonMark,
        MarkdownFormat::Md => mdx::Syntax::CommonMark,
        _ => mdx::Syntax::Mdx,
    };
    let tree = mdx::parse(split.body, syntax);
    for (line, message) in &tree.problems {
        warnings.push(Warning::new(
            rel_path,
            Some(split.body_line + line),
            message.clone(),
        ));
    }
    let parsed = sections::parse(&tree, content_title.is_some());
    let sections = build_sections(rel_path, &title, parsed, opts, &mut warnings);

    let module = categories
        .module_for(rel_path)
        .unwrap_or_else(|| title.clone());
    let page = Page {
        path: rel_path.to_string(),
        url,
        id: route.id.clone(),
        title,
        module,
        description: fm.description,
        tags: fm.tags,
        // Docusaurus keeps an unlisted page out of sidebars, search and the sitemap: the chat
        // does not send readers to it either, unless its front matter says `chat: true`.
        chat: fm.chat.unwrap_or(!fm.unlisted),
        unlisted: fm.unlisted,
        draft: fm.draft,
        sidebar_label: fm.sidebar_label,
        sidebar_position: fm.sidebar_position.or(route.number_prefix),
        sections,
    };
    Ok((page, warnings))
}

fn normalize_newlines(s: &str) -> Cow<'_, str> {
    if s.contains('\r') {
        Cow::Owned(s.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(s)
    }
}

/// Give headings their anchors (one slugger per page, the title H1 included, as in
/// Docusaurus) and their hierarchy.
fn build_sections(
    rel_path: &str,
    title: &str,
    parsed: sections::Parsed,
    opts: &ReadOptions,
    warnings: &mut Vec<Warning>,
) -> Vec<Section> {
    let comment_ids = opts.comment_heading_ids;
    let mut slugger = Slugger::maintaining_case(opts.anchors_maintain_case);
    let mut seen = std::collections::HashSet::new();
    if let Some(h) = &parsed.title_heading {
        let a = anchors::anchor(&mut slugger, h, comment_ids);
        seen.insert(a.anchor);
    }
    let mut stack: Vec<(u8, String)> = Vec::new();
    let mut out = Vec::with_capacity(parsed.sections.len());
    for raw in parsed.sections {
        match raw.heading {
            None => {
                if !raw.text.is_empty() {
                    out.push(Section {
                        heading: None,
                        anchor: None,
                        level: 0,
                        hierarchy: vec![title.to_string()],
                        text: raw.text,
                        has_code: raw.has_code,
                        heading_is_code: false,
                    });
                }
            }
            Some(h) => {
                let a = anchors::anchor(&mut slugger, &h, comment_ids);
                if !seen.insert(a.anchor.clone()) {
                    warnings.push(Warning::new(
                        rel_path,
                        None,
                        format!(
                            "heading {:?} has the anchor #{} which an earlier heading already has \
                             (custom ids are not de-duplicated by Docusaurus)",
                            a.text, a.anchor
                        ),
                    ));
                }
                while stack.last().is_some_and(|(lvl, _)| *lvl >= h.level) {
                    stack.pop();
                }
                let mut hierarchy = Vec::with_capacity(stack.len() + 2);
                hierarchy.push(title.to_string());
                hierarchy.extend(stack.iter().map(|(_, t)| t.clone()));
                hierarchy.push(a.text.clone());
                stack.push((h.level, a.text.clone()));
                out.push(Section {
                    heading: Some(a.text),
                    anchor: Some(a.anchor),
                    level: h.level,
                    hierarchy,
                    text: raw.text,
                    has_code: raw.has_code,
                    heading_is_code: h.code,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
