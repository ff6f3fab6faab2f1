//! Doc id, slug and URL, computed as Docusaurus 3 does (plugin-content-docs `docs.ts`
//! `processDocMetadata`, `slug.ts` `getSlug`, `isCategoryIndex`; `@docusaurus/utils`
//! `normalizeUrl`, `applyTrailingSlash`; the `resolve-pathname` package).
//!
//! Hand-written: these are small Docusaurus/JavaScript-specific path rules with no Rust
//! equivalent (`resolve-pathname` in particular keeps trailing slashes and clamps `..` at
//! the root, which neither `std::path` nor the `url` crate does the same way).

use super::number_prefix;

/// What the route computation needs from a page.
#[derive(Debug, Clone, Default)]
pub struct RouteInput<'a> {
    /// Path relative to the docs folder, `/`-separated, with extension.
    pub rel_path: &'a str,
    /// Front matter `id`.
    pub fm_id: Option<&'a str>,
    /// Front matter `slug`.
    pub fm_slug: Option<&'a str>,
    /// Front matter `parse_number_prefixes` (Docusaurus default: true).
    pub parse_number_prefixes: bool,
}

/// The doc's identity and location inside the docs plugin.
#[derive(Debug, Clone, PartialEq)]
pub struct DocRoute {
    /// Docusaurus doc id, e.g. `guides/docs/sidebar/items` (dir prefixes stripped).
    pub id: String,
    /// Slug relative to the docs route, always starting with `/`.
    pub slug: String,
    /// Number prefix of the file name (default sidebar position).
    pub number_prefix: Option<f64>,
}

/// Why a route could not be computed (Docusaurus throws on both).
#[derive(Debug, Clone, PartialEq)]
pub enum RouteError {
    /// The doc id contains `/`.
    IdWithSlash(String),
    /// The slug is not a valid absolute pathname.
    InvalidSlug(String),
}

/// Compute id and slug for one doc.
pub fn doc_route(input: &RouteInput<'_>) -> Result<DocRoute, RouteError> {
    let (dir, file_name) = match input.rel_path.rfind('/') {
        Some(i) => (&input.rel_path[..i], &input.rel_path[i + 1..]),
        None => (".", input.rel_path),
    };
    let dir = if dir.is_empty() { "." } else { dir };
    let stem = file_stem(file_name);

    let (unprefixed, number_prefix) = if input.parse_number_prefixes {
        let p = number_prefix::parse(stem);
        (p.name, p.number)
    } else {
        (stem, None)
    };
    let base_id = input.fm_id.unwrap_or(unprefixed);
    if base_id.contains('/') {
        return Err(RouteError::IdWithSlash(base_id.to_string()));
    }

    let dir_stripped = if input.parse_number_prefixes {
        number_prefix::strip_path(dir)
    } else {
        dir.to_string()
    };
    let id = if dir == "." {
        base_id.to_string()
    } else {
        format!("{dir_stripped}/{base_id}")
    };

    let dir_slug = if dir == "." {
        "/".to_string()
    } else {
        add_leading_slash(&add_trailing_slash(&dir_stripped))
    };
    let fm_slug = input.fm_slug.filter(|s| !s.is_empty());
    let slug = match fm_slug {
        Some(s) if s.starts_with('/') => s.to_string(),
        None if is_category_index(stem, dir) => dir_slug,
        _ => resolve_pathname(fm_slug.unwrap_or(base_id), &dir_slug),
    };
    if !is_valid_pathname(&slug) {
        return Err(RouteError::InvalidSlug(slug));
    }
    Ok(DocRoute {
        id,
        slug,
        number_prefix,
    })
}

/// `path.extname` semantics: the extension starts at the last `.` unless the name starts there.
fn file_stem(file_name: &str) -> &str {
    match file_name.rfind('.') {
        Some(i) if i > 0 => &file_name[..i],
        _ => file_name,
    }
}

/// Docusaurus `isCategoryIndex`: `index`, `readme` (any case), or a file named like its
/// folder. Compares the RAW names (number prefixes are not stripped here, as in Docusaurus).
fn is_category_index(stem: &str, dir: &str) -> bool {
    let stem = stem.to_lowercase();
    let last_dir = dir.rsplit('/').next().unwrap_or(dir).to_lowercase();
    stem == "index" || stem == "readme" || stem == last_dir
}

fn add_leading_slash(s: &str) -> String {
    if s.starts_with('/') {
        s.to_string()
    } else {
        format!("/{s}")
    }
}

fn add_trailing_slash(s: &str) -> String {
    if s.ends_with('/') {
        s.to_string()
    } else {
        format!("{s}/")
    }
}

/// Port of the `resolve-pathname` package (`resolvePathname(to, from)`), as used by
/// Docusaurus to resolve a relative slug against the doc's folder.
pub fn resolve_pathname(to: &str, from: &str) -> String {
    let to_parts: Vec<&str> = if to.is_empty() {
        Vec::new()
    } else {
        to.split('/').collect()
    };
    let mut parts: Vec<&str> = if from.is_empty() {
        Vec::new()
    } else {
        from.split('/').collect()
    };
    let is_to_abs = to.starts_with('/');
    let is_from_abs = from.starts_with('/');
    let must_end_abs = is_to_abs || is_from_abs;

    if is_to_abs {
        parts = to_parts;
    } else if !to_parts.is_empty() {
        parts.pop();
        parts.extend(to_parts);
    }
    if parts.is_empty() {
        return "/".to_string();
    }
    let has_trailing_slash = matches!(parts.last(), Some(&".") | Some(&"..") | Some(&""));

    let mut up = 0usize;
    let mut i = parts.len();
    while i > 0 {
        i -= 1;
        match parts[i] {
            "." => {
                parts.remove(i);
            }
            ".." => {
                parts.remove(i);
                up += 1;
            }
            _ if up > 0 => {
                parts.remove(i);
                up -= 1;
            }
            _ => {}
        }
    }
    if !must_end_abs {
        for _ in 0..up {
            parts.insert(0, "..");
        }
    }
    if must_end_abs
        && parts
            .first()
            .is_none_or(|p| !p.is_empty() && !p.starts_with('/'))
    {
        parts.insert(0, "");
    }
    let mut result = parts.join("/");
    if has_trailing_slash && !result.ends_with('/') {
        result.push('/');
    }
    result
}

/// Docusaurus `isValidPathname`: the string must survive `new URL(s, base).pathname`
/// unchanged (up to percent-encoding). That means: absolute, not protocol-relative (`//`),
/// no `.`/`..` segments, no `?`/`#`, no backslashes.
pub fn is_valid_pathname(s: &str) -> bool {
    if !s.starts_with('/') || s.starts_with("//") {
        return false;
    }
    if s.contains(['?', '#', '\\']) {
        return false;
    }
    !s.split('/').any(|seg| seg == "." || seg == "..")
}

/// Docusaurus `normalizeUrl` for path components: join with `/` and collapse repeated
/// slashes. A trailing slash survives only when the last component has one.
pub fn normalize_url(parts: &[&str]) -> String {
    let joined = parts
        .iter()
        .filter(|p| !p.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("/");
    let mut out = String::with_capacity(joined.len() + 1);
    if !joined.starts_with('/') {
        out.push('/');
    }
    let mut prev_slash = false;
    for c in joined.chars() {
        if c == '/' {
            if !prev_slash {
                out.push(c);
            }
            prev_slash = true;
        } else {
            out.push(c);
            prev_slash = false;
        }
    }
    out
}

/// Docusaurus `applyTrailingSlash`: `None` leaves the path alone; the site root and the
/// `baseUrl` itself are never changed.
pub fn apply_trailing_slash(path: &str, trailing_slash: Option<bool>, base_url: &str) -> String {
    match trailing_slash {
        None => path.to_string(),
        _ if path == "/" || path == base_url => path.to_string(),
        Some(true) => add_trailing_slash(path),
        Some(false) => path.trim_end_matches('/').to_string(),
    }
}

/// Full site path of a doc: `baseUrl` + `routeBasePath` + slug, normalised.
pub fn doc_url(
    slug: &str,
    base_url: &str,
    route_base_path: &str,
    trailing_slash: Option<bool>,
) -> String {
    let base = normalize_url(&[base_url]);
    let version_path = normalize_url(&[&base, route_base_path]);
    permalink_url(
        &normalize_url(&[&version_path, slug]),
        base_url,
        trailing_slash,
    )
}

/// The URL of a doc whose Docusaurus `permalink` is known (baseUrl included): the site's
/// `trailingSlash` applied to it, as [`doc_url`] does to the permalink it computes.
pub fn permalink_url(permalink: &str, base_url: &str, trailing_slash: Option<bool>) -> String {
    let base_with_slash = add_trailing_slash(&normalize_url(&[base_url]));
    apply_trailing_slash(permalink, trailing_slash, &base_with_slash)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(rel: &str, id: Option<&str>, slug: Option<&str>) -> DocRoute {
        doc_route(&RouteInput {
            rel_path: rel,
            fm_id: id,
            fm_slug: slug,
            parse_number_prefixes: true,
        })
        .unwrap_or_else(|e| panic!("{rel}: {e:?}"))
    }

    fn slug_of(rel: &str, slug: Option<&str>) -> String {
        route(rel, None, slug).slug
    }

    /// Docusaurus `slug.test.ts` cases, expressed as file paths.
    #[test]
    fn getslug_cases() {
        assert_eq!(slug_of("dir/doc.md", None), "/dir/doc");
        assert_eq!(slug_of("dir/subdir/doc.md", None), "/dir/subdir/doc");
        // conventional indexes
        assert_eq!(slug_of("dir/subdir/index.md", None), "/dir/subdir/");
        assert_eq!(slug_of("dir/subdir/inDEx.mdx", None), "/dir/subdir/");
        assert_eq!(slug_of("dir/subdir/readme.md", None), "/dir/subdir/");
        assert_eq!(slug_of("dir/subdir/reADMe.mdx", None), "/dir/subdir/");
        assert_eq!(slug_of("dir/subdir/subdir.md", None), "/dir/subdir/");
        assert_eq!(slug_of("dir/subdir/suBDir.mdx", None), "/dir/subdir/");
        assert_eq!(slug_of("index.md", None), "/");
        // explicit slug wins over the index convention
        assert_eq!(
            slug_of("dir/subdir/index.md", Some("/my/frontMatterSlug")),
            "/my/frontMatterSlug"
        );
        // number prefixes in folders
        assert_eq!(slug_of("001-dir1/002-dir2/doc.md", None), "/dir1/dir2/doc");
        // special characters survive
        assert_eq!(
            route("dir with spâce/hey $hello/doc.md", Some("my dôc"), None).slug,
            "/dir with spâce/hey $hello/my dôc"
        );
        assert_eq!(slug_of("doc.md", None), "/doc");
        // absolute slugs
        assert_eq!(slug_of("doc.md", Some("/abc/def")), "/abc/def");
        assert_eq!(slug_of("any/any/doc.md", Some("/abc/def")), "/abc/def");
        // relative slugs
        assert_eq!(slug_of("doc.md", Some("abc/def")), "/abc/def");
        assert_eq!(slug_of("dir/doc.md", Some("abc/def")), "/dir/abc/def");
        assert_eq!(
            slug_of("dir/subdir/doc.md", Some("abc/def")),
            "/dir/subdir/abc/def"
        );
        assert_eq!(slug_of("dir/doc.md", Some("./abc/def")), "/dir/abc/def");
        assert_eq!(slug_of("dir/doc.md", Some("./abc/../def")), "/dir/def");
        assert_eq!(
            slug_of("dir/subdir/doc.md", Some("../abc/def")),
            "/dir/abc/def"
        );
        assert_eq!(
            slug_of("dir/subdir/subdirDoc.md", Some("../../../../../abc/../def")),
            "/def"
        );
        assert_eq!(slug_of("dir/doc.md", Some("abc/")), "/dir/abc/");
    }

    #[test]
    fn invalid_slugs_and_ids() {
        let r = doc_route(&RouteInput {
            rel_path: "doc.md",
            fm_slug: Some("//"),
            parse_number_prefixes: true,
            ..Default::default()
        });
        assert!(matches!(r, Err(RouteError::InvalidSlug(_))));
        let r = doc_route(&RouteInput {
            rel_path: "doc.md",
            fm_id: Some("a/b"),
            parse_number_prefixes: true,
            ..Default::default()
        });
        assert_eq!(r, Err(RouteError::IdWithSlash("a/b".into())));
        assert!(!is_valid_pathname("/a?b"));
        assert!(!is_valid_pathname("relative"));
        assert!(is_valid_pathname("/api/plugins/@docusaurus/plugin-debug"));
    }

    #[test]
    fn ids_and_number_prefixes() {
        let r = route("01-guides/02-intro.md", None, None);
        assert_eq!(r.id, "guides/intro");
        assert_eq!(r.slug, "/guides/intro");
        assert_eq!(r.number_prefix, Some(2.0));
        // front matter id replaces the last segment of id and slug
        let r = route("api/themes/overview.mdx", Some("themes-overview"), None);
        assert_eq!(r.id, "api/themes/themes-overview");
        assert_eq!(r.slug, "/api/themes/themes-overview");
        // index detection compares raw names: "01-guides/01-guides.md" is an index,
        // "01-guides/guides.md" is not.
        assert_eq!(slug_of("01-guides/01-guides.md", None), "/guides/");
        assert_eq!(slug_of("01-guides/guides.md", None), "/guides/guides");
        // a front-matter id does not stop index.md from being the folder index
        assert_eq!(route("a/index.md", Some("x"), None).slug, "/a/");
        // date-like names keep their prefix
        assert_eq!(slug_of("2021-01-01-notes.md", None), "/2021-01-01-notes");
        // parse_number_prefixes: false keeps everything
        let r = doc_route(&RouteInput {
            rel_path: "01-a/02-b.md",
            parse_number_prefixes: false,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(
            (r.id.as_str(), r.slug.as_str()),
            ("01-a/02-b", "/01-a/02-b")
        );
        // the "extension" is only the last dot
        assert_eq!(
            slug_of("api/docusaurus.config.js.mdx", None),
            "/api/docusaurus.config.js"
        );
    }

    #[test]
    fn resolve_pathname_cases() {
        // from the resolve-pathname README / tests
        assert_eq!(resolve_pathname("about", "/company/jobs"), "/company/about");
        assert_eq!(
            resolve_pathname("../jobs", "/company/team/ceo"),
            "/company/jobs"
        );
        assert_eq!(resolve_pathname("about", "/"), "/about");
        assert_eq!(resolve_pathname("/about", "/company"), "/about");
        assert_eq!(resolve_pathname("a/", "/b/"), "/b/a/");
        assert_eq!(resolve_pathname("..", "/a/b/"), "/a/");
        assert_eq!(resolve_pathname("../../..", "/a/"), "/");
        assert_eq!(resolve_pathname("c", "a/b"), "a/c");
        assert_eq!(resolve_pathname("../../c", "a/b"), "../c");
    }

    #[test]
    fn urls() {
        assert_eq!(doc_url("/intro", "/", "/docs", None), "/docs/intro");
        assert_eq!(doc_url("/", "/", "/docs", None), "/docs/");
        assert_eq!(doc_url("/guides/", "/", "docs", None), "/docs/guides/");
        assert_eq!(
            doc_url("/intro", "/book/", "/docs", None),
            "/book/docs/intro"
        );
        assert_eq!(
            doc_url("/intro", "/book", "docs/", None),
            "/book/docs/intro"
        );
        // routeBasePath "/" (docs-only site) and ""
        assert_eq!(doc_url("/intro", "/", "/", None), "/intro");
        assert_eq!(doc_url("/", "/", "/", None), "/");
        assert_eq!(doc_url("/intro", "/book/", "", None), "/book/intro");
        // trailingSlash
        assert_eq!(doc_url("/intro", "/", "/docs", Some(true)), "/docs/intro/");
        assert_eq!(
            doc_url("/guides/", "/", "/docs", Some(false)),
            "/docs/guides"
        );
        assert_eq!(doc_url("/", "/", "/docs", Some(false)), "/docs");
        // the site root and baseUrl are never changed
        assert_eq!(doc_url("/", "/", "/", Some(false)), "/");
        assert_eq!(doc_url("/", "/book/", "/", Some(false)), "/book/");
        assert_eq!(doc_url("/", "/book/", "/", Some(true)), "/book/");
    }
}
