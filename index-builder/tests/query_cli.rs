//! `index-builder query` in both of the widget's phases: with `--before-encoder` it searches with
//! words alone, as the widget does while its encoder module is still downloading, and otherwise
//! with words and meaning fused; an operator compares the two to see what a reader on a slow link
//! gets first.

mod needs;

const PAGE: &str = "\
# Robot basics

## Sensors

A depth camera measures how far away each point in front of the robot is. A lidar sweeps a laser
around the robot and returns a ring of distances, which mapping and obstacle avoidance use.

## Motors

Each joint is driven by a motor with an encoder that reports its angle. The controller sends
torque commands to the motors many times a second.

## Batteries

A humanoid robot carries a lithium battery pack in its torso. A full charge lasts about two hours
of walking, less when the arms lift heavy loads.
";

#[test]
#[ignore = "needs the model (scripts/setup.sh)"]
fn query_searches_in_either_phase_as_the_widget_does() {
    let model_dir = needs::model_dir();
    let (_tmp, out) = needs::build_one_page_book("basics.md", PAGE, &[], &model_dir);
    let out = out.as_str();
    let ask = |question: &str, phase: Option<&str>| -> serde_json::Value {
        let mut args = vec!["query", "--index", out, "--question", question];
        args.extend(phase);
        serde_json::from_str(needs::run_index_builder(&args, &model_dir).trim()).unwrap()
    };
    // A question in the book's words is found in both phases.
    for phase in [None, Some("--before-encoder")] {
        let a = ask("how long does the battery charge last", phase);
        assert_eq!(a["refused"], false, "{phase:?}: {a}");
        assert_eq!(a["results"][0]["heading"], "Batteries", "{phase:?}: {a}");
    }
    // Scores differ between the phases: words alone (BM25, normalised to the best) against words
    // and meaning fused, so `--before-encoder` took effect.
    let with_encoder = ask("lidar and depth camera distances", None);
    let before_encoder = ask("lidar and depth camera distances", Some("--before-encoder"));
    assert_eq!(with_encoder["results"][0]["heading"], "Sensors");
    assert_eq!(before_encoder["results"][0]["heading"], "Sensors");
    assert_ne!(
        with_encoder["results"], before_encoder["results"],
        "the two phases searched alike"
    );
}
