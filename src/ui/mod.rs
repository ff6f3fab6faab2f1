//! The Leptos widget and its browser plumbing (wasm32).
