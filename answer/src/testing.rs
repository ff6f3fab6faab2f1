//! A tiny real index built in memory, so tests of the answer core and of the widget search the
//! real `book_retrieval::Index` (BM25 with the stored thresholds; vectors are zero, so the index
//! answers as the browser does before the encoder has loaded).

use book_retrieval::bm25::{Bm25, Bm25Doc, Bm25Params};
use book_retrieval::vectors::QuantizedVectors;
use book_retrieval::{ChunkMeta, ChunkTexts, Index, IndexMeta, PageInfo, SearchSettings};

/// One section of a test book: page title, section heading, page URL, anchor, text.
pub type TestSection<'a> = (&'a str, Option<&'a str>, &'a str, Option<&'a str>, &'a str);

/// Dimension of the (zero) test vectors.
pub const TEST_DIM: usize = 4;

/// Builds an index and its texts from `sections` (pages in order of first appearance).
pub fn tiny_index(sections: &[TestSection]) -> (Index, ChunkTexts) {
    let mut pages: Vec<PageInfo> = Vec::new();
    let mut chunks = Vec::new();
    for (i, (title, section, page_url, anchor, _)) in sections.iter().enumerate() {
        let page = match pages.iter().position(|p| p.url == *page_url) {
            Some(p) => p,
            None => {
                pages.push(PageInfo {
                    url: page_url.to_string(),
                    title: title.to_string(),
                    path: format!("{}.md", page_url.trim_matches('/')),
                    module: "Book".into(),
                });
                pages.len() - 1
            }
        };
        chunks.push(ChunkMeta {
            id: format!("c{i}"),
            module: "Book".into(),
            chapter: title.to_string(),
            section: section.map(Into::into),
            headings: std::iter::once(title.to_string())
                .chain(section.map(Into::into))
                .collect(),
            url: match anchor {
                Some(a) => format!("{page_url}#{a}"),
                None => page_url.to_string(),
            },
            path: pages[page].path.clone(),
            has_code: sections[i].4.contains("```"),
            page: page as u32,
        });
    }
    let titles: Vec<String> = chunks.iter().map(|c| c.headings.join(" ")).collect();
    let docs: Vec<Bm25Doc> = sections
        .iter()
        .zip(&titles)
        .map(|(s, t)| Bm25Doc {
            body: s.4,
            heading: s.1.unwrap_or(""),
            titles: t,
        })
        .collect();
    let bm25 = Bm25::build(&docs, Bm25Params::default());
    let n = chunks.len();
    // Each section's follow-up, as a build stores it (the phrasing itself is the build's).
    let follow_ups = chunks
        .iter()
        .map(|c| format!("What is {}?", c.section.as_deref().unwrap_or(&c.chapter)))
        .collect();
    let index = Index {
        model_id: "test".into(),
        content_hash: "test".into(),
        meta: IndexMeta {
            chunks,
            pages,
            settings: SearchSettings::default(),
            book_title: "Test book".into(),
            common_words: Default::default(),
            unaskable: Vec::new(),
            follow_ups,
        },
        vectors: QuantizedVectors::quantize(&vec![0.0; n * TEST_DIM], TEST_DIM),
        bm25,
        ann: None,
    };
    let texts = ChunkTexts::new(
        "test".into(),
        sections.iter().map(|s| s.4.to_string()).collect(),
    );
    (index, texts)
}

/// A three-page robotics book: enough for answers, refusals, code quotes and follow-ups.
pub fn robot_book() -> (Index, ChunkTexts) {
    tiny_index(&[
        ("ROS 2", Some("Nodes"), "/docs/ros", Some("nodes"),
         "A node is a process in the ROS graph that performs computation. Nodes publish data on topics."),
        ("ROS 2", Some("Topics"), "/docs/ros", Some("topics"),
         "Topics carry messages between ROS nodes. A publisher sends and a subscriber receives."),
        ("ROS 2", Some("Creating a Node"), "/docs/ros", Some("creating-a-node"),
         "Create a package first, then run the node with the following command.\n\n```bash\nros2 run demo_nodes_py talker\n```"),
        ("Gazebo", Some("Bridging Topics"), "/docs/gazebo", Some("bridging-topics"),
         "```bash\nros2 run ros_gz_bridge parameter_bridge /chatter@std_msgs/msg/String@gz.msgs.StringMsg\n```"),
        ("Gazebo", Some("World Files"), "/docs/gazebo", Some("world-files"),
         "A world file describes the models, lights and physics of a simulated scene."),
        ("URDF", None, "/docs/urdf", None,
         "A URDF file describes the links and joints of a robot in XML."),
    ])
}
