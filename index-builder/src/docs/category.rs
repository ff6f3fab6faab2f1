//! Folder labels from Docusaurus `_category_.json` / `_category_.yml` / `_category_.yaml`,
//! and the "module" a page belongs to (the label of its top-level folder).

use super::error::Warning;
use super::number_prefix;
use std::collections::BTreeMap;
use yaml_rust2::{Yaml, YamlLoader};

/// Category file names Docusaurus looks for in each docs folder, in the order we prefer
/// them when a folder has more than one.
pub const CATEGORY_FILES: [&str; 3] = ["_category_.json", "_category_.yml", "_category_.yaml"];

/// Labels of docs folders, keyed by folder path relative to the docs folder
/// (`/`-separated, no trailing slash, e.g. `api/plugins`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CategoryLabels {
    labels: BTreeMap<String, String>,
}

impl CategoryLabels {
    /// No labels (every folder falls back to its humanised name).
    pub fn new() -> Self {
        Self::default()
    }

    /// Set the label of folder `dir`.
    pub fn insert(&mut self, dir: impl Into<String>, label: impl Into<String>) {
        self.labels.insert(dir.into(), label.into());
    }

    /// The label set for folder `dir`, if any.
    pub fn get(&self, dir: &str) -> Option<&str> {
        self.labels.get(dir).map(String::as_str)
    }

    /// The module name for a page: the label of its top-level folder, or that folder's
    /// name with its number prefix stripped and humanised. `None` for pages at the root.
    pub fn module_for(&self, rel_path: &str) -> Option<String> {
        let (top, _) = rel_path.split_once('/')?;
        Some(match self.get(top) {
            Some(label) => label.to_string(),
            None => humanize(number_prefix::parse(top).name),
        })
    }
}

/// `module-01-foundations` → `Module 01 foundations`: separators to spaces, first letter
/// upper-cased. (Docusaurus itself shows the stripped folder name unchanged; the
/// humanised form reads better in chat citations.)
pub fn humanize(name: &str) -> String {
    let spaced: String = name
        .chars()
        .map(|c| if c == '-' || c == '_' { ' ' } else { c })
        .collect();
    let spaced = spaced.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut chars = spaced.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => name.to_string(),
    }
}

/// Read the `label` from a category file's text. `file_name` picks JSON or YAML.
/// Returns `None` (and a warning when the file is malformed) when there is no label.
pub fn parse_label(
    file_name: &str,
    text: &str,
    rel_path: &str,
    warnings: &mut Vec<Warning>,
) -> Option<String> {
    if file_name.ends_with(".json") {
        match serde_json::from_str::<serde_json::Value>(text) {
            Ok(v) => v.get("label").and_then(|l| l.as_str()).map(str::to_string),
            Err(e) => {
                warnings.push(Warning::new(
                    rel_path,
                    Some(e.line()),
                    format!("category file is not valid JSON ({e}); folder name used"),
                ));
                None
            }
        }
    } else {
        match YamlLoader::load_from_str(text) {
            Ok(docs) => match docs.first() {
                Some(Yaml::Hash(h)) => match h.get(&Yaml::String("label".into())) {
                    Some(Yaml::String(s)) => Some(s.clone()),
                    _ => None,
                },
                _ => None,
            },
            Err(e) => {
                warnings.push(Warning::new(
                    rel_path,
                    Some(e.marker().line()),
                    format!(
                        "category file is not valid YAML ({}); folder name used",
                        e.info()
                    ),
                ));
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_from_json_and_yaml() {
        let mut w = Vec::new();
        let json = r#"{"label": "Module 04: VLA", "position": 4}"#;
        assert_eq!(
            parse_label("_category_.json", json, "m/_category_.json", &mut w).as_deref(),
            Some("Module 04: VLA")
        );
        let yml = "label: Plugins\nposition: 2\nlink:\n  type: doc\n  id: x # comment\n";
        assert_eq!(
            parse_label("_category_.yml", yml, "a/_category_.yml", &mut w).as_deref(),
            Some("Plugins")
        );
        assert!(w.is_empty());
        assert_eq!(
            parse_label("_category_.yml", "position: 1", "a", &mut w),
            None
        );
        assert!(w.is_empty(), "missing label is not an error");
    }

    #[test]
    fn broken_category_files_warn() {
        let mut w = Vec::new();
        assert_eq!(
            parse_label("_category_.json", "{label:", "a/_category_.json", &mut w),
            None
        );
        assert_eq!(
            parse_label("_category_.yaml", "a: [", "b/_category_.yaml", &mut w),
            None
        );
        assert_eq!(w.len(), 2);
        assert!(w[0].line.is_some());
    }

    #[test]
    fn modules() {
        let mut c = CategoryLabels::new();
        c.insert("module-04-vla", "Module 04: VLA");
        assert_eq!(
            c.module_for("module-04-vla/ch/p.md").as_deref(),
            Some("Module 04: VLA")
        );
        assert_eq!(
            c.module_for("00-introduction/X.md").as_deref(),
            Some("Introduction")
        );
        assert_eq!(
            c.module_for("module-01-foundations/a/b.md").as_deref(),
            Some("Module 01 foundations")
        );
        assert_eq!(c.module_for("intro.md"), None);
        assert_eq!(humanize("getting_started"), "Getting started");
        assert_eq!(humanize("ünicode-x"), "Ünicode x");
        assert_eq!(humanize("--"), "--");
    }
}
