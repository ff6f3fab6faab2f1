//! "Answer settings" in the panel header: detail level, answer format and citations on/off. They
//! are kept with the session and used from the next question on (the LLM prompt; excerpt answers).

use leptos::prelude::*;

use super::state::use_ui;
use crate::prefs::{Detail, Format, Preferences};

const DETAILS: [(Detail, &str, &str); 3] = [
    (Detail::Basic, "basic", "detailBasic"),
    (Detail::Intermediate, "intermediate", "detailIntermediate"),
    (Detail::Advanced, "advanced", "detailAdvanced"),
];
const FORMATS: [(Format, &str, &str); 3] = [
    (Format::Concise, "concise", "formatConcise"),
    (Format::Detailed, "detailed", "formatDetailed"),
    (Format::Examples, "examples", "formatExamples"),
];

/// The settings button and its popover.
#[component]
pub fn Settings() -> impl IntoView {
    let ui = use_ui();
    let prefs = Memo::new(move |_| {
        ui.state_rev.track();
        ui.conv().prefs()
    });
    let set = move |f: &dyn Fn(&mut Preferences)| {
        let mut p = ui.conv().prefs();
        f(&mut p);
        ui.conv().set_prefs(p);
    };
    let detail_options = move || {
        DETAILS
        .iter()
        .map(|&(d, value, key)| {
            view! { <option value=value selected=move || prefs.get().detail == d>{ui.t(key)}</option> }
        })
        .collect::<Vec<_>>()
    };
    let format_options = move || {
        FORMATS
        .iter()
        .map(|&(f, value, key)| {
            view! { <option value=value selected=move || prefs.get().format == f>{ui.t(key)}</option> }
        })
        .collect::<Vec<_>>()
    };
    view! {
        <button
            type="button"
            class="bc-icon"
            aria-label=ui.t("settings")
            aria-expanded=move || if ui.settings_open.get() { "true" } else { "false" }
            aria-controls="bc-settings"
            on:click=move |_| ui.settings_open.update(|v| *v = !*v)
        >
            <svg aria-hidden="true" width="18" height="18" viewBox="0 0 24 24" fill="currentColor"><path d="M3 5h10v2H3zm14 0h4v2h-4zm-2-2h2v6h-2zM3 11h4v2H3zm8 0h10v2H11zM7 9h2v6H7zm-4 8h10v2H3zm14 0h4v2h-4zm-2-2h2v6h-2z"></path></svg>
        </button>
        <Show when=move || ui.settings_open.get()>
            <div id="bc-settings" class="bc-settings" role="group" aria-label=ui.t("settings")>
                <label>
                    <span>{ui.t("detail")}</span>
                    <select on:change=move |e| {
                        let v = event_target_value(&e);
                        if let Some(&(d, _, _)) = DETAILS.iter().find(|(_, val, _)| *val == v) {
                            set(&|p| p.detail = d);
                        }
                    }>{detail_options()}</select>
                </label>
                <label>
                    <span>{ui.t("format")}</span>
                    <select on:change=move |e| {
                        let v = event_target_value(&e);
                        if let Some(&(f, _, _)) = FORMATS.iter().find(|(_, val, _)| *val == v) {
                            set(&|p| p.format = f);
                        }
                    }>{format_options()}</select>
                </label>
                <label class="bc-check">
                    <input
                        type="checkbox"
                        prop:checked=move || prefs.get().citations
                        on:change=move |e| {
                            let on = event_target_checked(&e);
                            set(&|p| p.citations = on);
                        }
                    />
                    <span>{ui.t("citations")}</span>
                </label>
            </div>
        </Show>
    }
}
