//! Turns the safe Markdown tree into Leptos views: only text nodes and a fixed set of elements,
//! citations as links to the numbered sources.

use leptos::prelude::*;

use crate::markdown::{safe_href, Kind, Node};
use crate::source::{distinct_labels, SourceRef};

/// Renders `nodes`; `[n]` links to `sources[n-1]`.
pub fn render(nodes: Vec<Node>, sources: &[SourceRef]) -> Vec<AnyView> {
    let cited = Cited {
        sources,
        labels: distinct_labels(sources),
    };
    render_nodes(nodes, &cited)
}

/// The sources citations link to, with the labels the Sources list shows for them (worked out
/// once per render, not per citation).
struct Cited<'a> {
    sources: &'a [SourceRef],
    labels: Vec<String>,
}

fn render_nodes(nodes: Vec<Node>, cited: &Cited<'_>) -> Vec<AnyView> {
    nodes.into_iter().map(|n| node(n, cited)).collect()
}

/// One element of the fixed set with its children. Built through one generic path (one
/// instantiation for every tag instead of one per `view!`), which keeps the widget's wasm small.
fn element(tag: &'static str, children: Vec<AnyView>) -> AnyView {
    leptos::html::custom(tag).child(children).into_any()
}

fn cite(n: usize, cited: &Cited<'_>) -> AnyView {
    let i = n.wrapping_sub(1);
    match cited.sources.get(i).zip(cited.labels.get(i)) {
        Some((s, label)) => {
            let label = label.clone();
            let href = safe_href(&s.url).unwrap_or_else(|| "#".into());
            view! {
                <a class="bc-cite" href=href title=label.clone() aria-label=format!("Source {n}: {label}")>
                    {format!("[{n}]")}
                </a>
            }
            .into_any()
        }
        None => ().into_any(),
    }
}

fn node(n: Node, cited: &Cited<'_>) -> AnyView {
    match n {
        Node::Text(t) => t.into_any(),
        Node::Code(c) => element("code", vec![c.into_any()]),
        Node::Cite(v) => v
            .into_iter()
            .map(|n| cite(n, cited))
            .collect::<Vec<_>>()
            .into_any(),
        Node::SoftBreak => " ".into_any(),
        Node::HardBreak => element("br", Vec::new()),
        Node::Rule => element("hr", Vec::new()),
        Node::CodeBlock(lang, code) => {
            let copy = code.clone();
            let copied = RwSignal::new(false);
            view! {
                <pre>
                    <button
                        type="button"
                        class="bc-btn bc-copy"
                        aria-label="Copy code"
                        on:click=move |_| {
                            let text = copy.clone();
                            leptos::task::spawn_local(async move {
                                if super::web::copy_text(&text).await {
                                    copied.set(true);
                                }
                            });
                        }
                    >
                        {move || if copied.get() { "Copied" } else { "Copy" }}
                    </button>
                    <code data-lang=lang.unwrap_or_default()>{code}</code>
                </pre>
            }
            .into_any()
        }
        Node::Element(kind, children) => {
            let c = render_nodes(children, cited);
            match kind {
                Kind::Paragraph => element("p", c),
                Kind::Heading(l) if l <= 2 => element("h3", c),
                Kind::Heading(_) => element("h4", c),
                Kind::BlockQuote => element("blockquote", c),
                Kind::List(None) => element("ul", c),
                Kind::List(Some(s)) => view! { <ol start=s.to_string()>{c}</ol> }.into_any(),
                Kind::Item => element("li", c),
                Kind::Emphasis => element("em", c),
                Kind::Strong => element("strong", c),
                Kind::Strikethrough => element("del", c),
                Kind::Link(href) => {
                    let external = href.starts_with("http://") || href.starts_with("https://");
                    view! {
                        <a
                            href=href
                            rel="noopener noreferrer nofollow"
                            target=if external { "_blank" } else { "_self" }
                        >
                            {c}
                        </a>
                    }
                    .into_any()
                }
                Kind::Table => {
                    view! { <div class="bc-table"><table><tbody>{c}</tbody></table></div> }
                        .into_any()
                }
                Kind::TableRow => element("tr", c),
                Kind::TableCell => element("td", c),
            }
        }
    }
}
