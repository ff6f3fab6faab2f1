//! The shipped encoder's size and fidelity under several quantization plans: for each, the
//! deflated size of its file (the sample book's vocabulary kept, as `build` does) and the cosine of
//! its question vectors to the exact f32 model's, over every labelled question and the reference
//! sentences. Prints a table (`ENCODER_PLANS_ALL=1`: every plan compared in FORMAT.md's terms);
//! asserts the default plan's figures as measured (`QuantPlan::ROW_STEPS`: cosine ≥ 0.97 on every
//! sentence and ≥ 0.99 on average, file deflated ≤ 6.9 MB with the sentences' tokens kept too,
//! 6.71 MB measured, 6.79 with the 256-row position table before; version 1 was 11.5 MB), and those of `QuantPlan::GROUP_STEPS`, the default
//! before it (≤ 7.4 MB, 7.13 MB measured, same cosine floors). Also prints where the default's bytes go, part by part, and how far each kind of
//! matrix's codes are from their order-0 entropy. `ENCODER_PLANS_TRY` adds plans of one's own.
//!
//! `pruned_vocabulary_size_and_fidelity` measures the word table as readers get it (the sentences'
//! tokens not kept; pruned tokens as `[UNK]` or remapped) and `positions_at_8_bits` the position
//! table at 8 bits.
//!
//! `cargo test --release -p index-builder --test encoder_plans -- --include-ignored --nocapture`

mod needs;

use book_retrieval::encoder::QuantPlan;
use index_builder::model;

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Every labelled question and reference sentence.
fn sentences() -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(needs::repo().join("eval")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            for line in std::fs::read_to_string(&path).unwrap().lines() {
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
                    if let Some(q) = v["question"].as_str() {
                        out.push(q.to_string());
                    }
                }
            }
        }
    }
    let refs: Vec<serde_json::Value> = serde_json::from_str(include_str!(
        "../../retrieval/tests/fixtures/reference.json"
    ))
    .unwrap();
    out.extend(
        refs.iter()
            .filter_map(|r| r["text"].as_str().map(String::from)),
    );
    out
}

/// The sample book's Markdown, for the vocabulary the builder would keep.
fn sample_text(dir: &std::path::Path, out: &mut String) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sample_text(&path, out);
        } else if path.extension().is_some_and(|e| e == "md" || e == "mdx") {
            out.push_str(&std::fs::read_to_string(&path).unwrap());
            out.push('\n');
        }
    }
}

/// Calibration text: the first `count` paragraphs of the book's Markdown longer than 40 bytes, each
/// cut to `chars` bytes (at a character boundary), as `build` cuts its chunk texts.
fn calibration_paragraphs(text: &str, count: usize, chars: usize) -> Vec<&str> {
    text.split("\n\n")
        .map(str::trim)
        .filter(|p| p.len() > 40)
        .take(count)
        .map(|p| {
            let mut end = p.len().min(chars);
            while !p.is_char_boundary(end) {
                end -= 1;
            }
            &p[..end]
        })
        .collect()
}

/// Deflated bytes of each kind of part of the file (all layers together), largest first.
fn print_breakdown(encoder: &book_retrieval::Encoder) {
    let mut sizes: Vec<(&str, usize, usize)> = Vec::new();
    for (name, bytes) in encoder.file_parts().unwrap() {
        let deflated = miniz_oxide::deflate::compress_to_vec(&bytes, 6).len();
        match sizes.iter_mut().find(|(n, ..)| *n == name) {
            Some(s) => {
                s.1 += bytes.len();
                s.2 += deflated;
            }
            None => sizes.push((name, bytes.len(), deflated)),
        }
    }
    sizes.sort_by_key(|s| std::cmp::Reverse(s.2));
    // What a byte-aligned layout could reach: the codes one a byte, deflated, and their order-0
    // entropy, per kind of matrix.
    let kinds = [
        "query", "key", "value", "attn_out", "ff_in", "ff_out", "words",
    ];
    for (k, kind) in kinds.iter().enumerate() {
        let mut packed_deflated = 0usize;
        let mut codes: Vec<u8> = Vec::new();
        let mut unpack = |m: &book_retrieval::encoder::Grouped| {
            packed_deflated += miniz_oxide::deflate::compress_to_vec(&m.packed, 6).len();
            let bits = m.bits as usize;
            for i in 0..m.rows * m.cols {
                let bit = i * bits;
                let lo = m.packed[bit / 8] as u32;
                let hi = m.packed.get(bit / 8 + 1).copied().unwrap_or(0) as u32;
                codes.push((((lo | hi << 8) >> (bit % 8)) & ((1 << bits) - 1)) as u8);
            }
        };
        if k == 6 {
            if let book_retrieval::encoder::WordEmbeddings::Grouped { table, .. } = &encoder.words {
                unpack(table);
            }
        } else {
            for l in &encoder.layers {
                let lin = [&l.query, &l.key, &l.value, &l.attn_out, &l.ff_in, &l.ff_out][k];
                if let book_retrieval::encoder::Linear::I8 { q, scale, inp, .. } = lin {
                    let m = [
                        (2u8, 32usize),
                        (3, 32),
                        (4, 32),
                        (5, 32),
                        (6, 32),
                        (8, usize::MAX),
                    ]
                    .iter()
                    .find_map(|&(b, g)| {
                        book_retrieval::encoder::Grouped::from_i8(q, scale, *inp, b, g.min(*inp))
                    })
                    .unwrap();
                    unpack(&m);
                }
            }
        }
        let mut hist = [0usize; 256];
        codes.iter().for_each(|&b| hist[b as usize] += 1);
        let n = codes.len() as f64;
        let h: f64 = hist
            .iter()
            .filter(|&&c| c > 0)
            .map(|&c| -(c as f64 / n) * (c as f64 / n).log2())
            .sum();
        eprintln!(
            "{kind}: codes packed deflated {:.1} kB; one a byte deflated {:.1} kB; order-0 entropy {:.3} bits ({:.1} kB)",
            packed_deflated as f64 / 1e3,
            miniz_oxide::deflate::compress_to_vec(&codes, 9).len() as f64 / 1e3,
            h,
            h * n / 8e3
        );
    }
    eprintln!("part | raw kB | deflated kB");
    for (name, raw, deflated) in sizes {
        eprintln!(
            "{name} | {:.1} | {:.1}",
            raw as f64 / 1e3,
            deflated as f64 / 1e3
        );
    }
}

/// Per layer, what lowering one matrix kind costs: the default plan with only that layer's matrix
/// taken from a lower-bit plan, measured on held-out book paragraphs (not the calibration ones,
/// not the labelled questions: the figure a plan may be chosen by) and, for information, on the
/// labelled sentences.
fn sensitivity(
    f32_encoder: &book_retrieval::Encoder,
    keep: &[bool],
    ranges: &[book_retrieval::encoder::InputRanges],
    text: &str,
    sentences: &[String],
    exact: &[Vec<f32>],
) {
    let held_out: Vec<String> = text
        .split("\n\n")
        .map(str::trim)
        .filter(|p| p.len() > 40)
        .skip(256)
        .take(200)
        .map(|p| p.chars().take(120).collect())
        .collect();
    let held_exact: Vec<Vec<f32>> = held_out.iter().map(|s| f32_encoder.encode(s)).collect();
    let d = QuantPlan::default();
    let base = f32_encoder.quantized_with(keep, &d, ranges);
    let mean = |e: &book_retrieval::Encoder, set: &[String], ex: &[Vec<f32>]| {
        let c: Vec<f32> = set
            .iter()
            .zip(ex)
            .map(|(s, x)| cosine(&e.encode(s), x))
            .collect();
        let min = c.iter().copied().fold(1f32, f32::min);
        (c.iter().sum::<f32>() / c.len() as f32, min)
    };
    let (hb, _) = mean(&base, &held_out, &held_exact);
    let (qb, qmin) = mean(&base, sentences, exact);
    eprintln!("sensitivity: {} held-out paragraphs; base held-out mean {hb:.4}, questions mean {qb:.4} min {qmin:.4}", held_out.len());
    // Each layer's row steps 1/0.7 times as coarse: what a bit buys in each layer.
    let base_bytes = base.to_bytes().unwrap().len() as f64;
    for i in 0..base.layers.len().min(6) {
        let mut coarse = d;
        coarse.layer_precision[i] = (coarse.layer_precision[i] as f32 * 0.7).round() as u8;
        let e = f32_encoder.quantized_with(keep, &coarse, ranges);
        let saved = base_bytes - e.to_bytes().unwrap().len() as f64;
        let (h, _) = mean(&e, &held_out, &held_exact);
        let (q, qm) = mean(&e, sentences, exact);
        eprintln!(
            "sensitivity layer {i} row steps x1/0.7: {:.0} kB smaller, held-out mean {:+.5}, questions mean {:+.5} min {qm:.4}",
            saved / 1e3,
            h - hb,
            q - qb
        );
    }
    for (kind, k, bits) in [("ff_out", 5usize, 4u8), ("attn_out", 3, 4), ("ff_in", 4, 3)] {
        let mut low_plan = d;
        low_plan.bits[k] = bits;
        let low = f32_encoder.quantized_with(keep, &low_plan, ranges);
        for i in 0..base.layers.len() {
            let mut e = base.clone();
            let src = &low.layers[i];
            let dst = &mut e.layers[i];
            match k {
                5 => dst.ff_out = src.ff_out.clone(),
                3 => dst.attn_out = src.attn_out.clone(),
                _ => dst.ff_in = src.ff_in.clone(),
            }
            let (h, _) = mean(&e, &held_out, &held_exact);
            let (q, qm) = mean(&e, sentences, exact);
            eprintln!(
                "sensitivity {kind} {bits}-bit layer {i}: held-out mean {:+.5}, questions mean {:+.5} min {qm:.4}",
                h - hb,
                q - qb
            );
        }
    }
}

#[test]
#[ignore = "needs the model (BOOK_CHAT_MODEL_DIR or scripts/setup.sh); run in release"]
fn quantization_plans_size_and_fidelity() {
    let f32_encoder = model::load_f32_encoder(&needs::model_dir()).unwrap();
    let mut text = String::new();
    sample_text(&needs::repo().join("www/docs"), &mut text);
    // As `build` keeps them: the ASCII tokens among the first 6 000 ids, plus the book's.
    let mut keep = index_builder::build::common_vocab(&f32_encoder, 6000);
    for id in f32_encoder.tokenizer.encode(&text, usize::MAX) {
        keep[id as usize] = true;
    }
    let sentences = sentences();
    // Calibration text: the sample book's paragraphs (never the measured sentences), as many and
    // as long as `build` takes chunk texts (256, cut to 120 characters).
    // ENCODER_PLANS_CALIB="count,chars" calibrates on other amounts of text.
    let calib: Vec<usize> = std::env::var("ENCODER_PLANS_CALIB")
        .map(|v| v.split(',').map(|n| n.trim().parse().unwrap()).collect())
        .unwrap_or_else(|_| vec![256, 120]);
    let paragraphs = calibration_paragraphs(&text, calib[0], calib[1]);
    // Every input's statistics, for the plans that round all layers with GPTQ.
    let all = QuantPlan {
        bits: [4; 6],
        last_bits: [4; 6],
        ..QuantPlan::default()
    };
    eprintln!("calibration: {} paragraphs", paragraphs.len());
    let ranges = f32_encoder.input_ranges(&paragraphs, &all);
    // The sentences' own tokens are kept too, so that the cosine measures quantization alone (a
    // pruned token is [UNK] in both the shipped and a full-vocabulary int8 model).
    for s in &sentences {
        for id in f32_encoder.tokenizer.encode(s, usize::MAX) {
            keep[id as usize] = true;
        }
    }
    let exact: Vec<Vec<f32>> = sentences.iter().map(|s| f32_encoder.encode(s)).collect();
    let d = QuantPlan::default();
    let mut plans = vec![
        ("default (row steps)", d),
        ("group steps", QuantPlan::GROUP_STEPS),
    ];
    if std::env::var_os("ENCODER_PLANS_ALL").is_some() {
        let p = |lb, ob, g, wb, wg, sp, gptq| QuantPlan {
            gptq,
            bits: [lb, lb, lb, ob, lb, ob],
            last_bits: [lb, lb, lb, ob, lb, ob],
            layer_group: g,
            word_bits: wb,
            word_group: wg,
            smooth_percent: sp,
            precision: [0; 6],
            word_precision: 0,
            ..d
        };
        plans.extend([
            ("int8 layers (v1-like)", p(8, 8, 384, 4, 64, 0, false)),
            ("4-bit everywhere", p(4, 4, 32, 4, 32, 50, true)),
            ("4-bit g32 plain rounding", p(4, 4, 32, 4, 32, 0, false)),
            ("4-bit g32 GPTQ, no smoothing", p(4, 4, 32, 4, 32, 0, true)),
            ("4-bit, outputs int8", p(4, 8, 32, 4, 32, 50, true)),
            ("4-bit, words int8", p(4, 4, 32, 8, 384, 50, true)),
            ("4-bit g64", p(4, 4, 64, 4, 64, 50, true)),
            ("3-bit g32 layers", p(3, 3, 32, 4, 32, 50, true)),
            ("4-bit g16", p(4, 4, 16, 4, 32, 50, true)),
            ("outputs 5-bit", p(4, 5, 32, 4, 32, 50, true)),
            ("outputs 6-bit", p(4, 6, 32, 4, 32, 50, true)),
            ("words 3-bit", p(4, 8, 32, 3, 32, 50, true)),
        ]);
        let mixed = |bits| QuantPlan {
            bits,
            last_bits: bits,
            precision: [0; 6],
            word_precision: 0,
            ..d
        };
        plans.extend([
            ("FFN contraction 5-bit", mixed([4, 4, 4, 8, 4, 5])),
            ("FFN expansion 3-bit", mixed([4, 4, 4, 8, 3, 8])),
            ("query, key 3-bit", mixed([3, 3, 4, 8, 4, 8])),
        ]);
    }
    // ENCODER_PLANS_TRY="q,k,v,o,i,f,group,word bits,word group[,last layer's q,k,v,o,i,f];...":
    // extra plans to compare (the last layer as the others when its bits are not given).
    if let Ok(spec) = std::env::var("ENCODER_PLANS_TRY") {
        for one in spec.split(';').filter(|s| !s.is_empty()) {
            // A field `fit=0000111`: which kinds (q, k, v, o, i, f, words) get a fitted codebook.
            let fit: Vec<bool> = one
                .split(',')
                .find_map(|v| v.trim().strip_prefix("fit="))
                .map(|f| f.chars().map(|c| c == '1').collect())
                .unwrap_or_default();
            // A field `prec=26.26.34.0.38.30.30`: per kind (q, k, v, o, i, f, words), one step a
            // row at its rms over value / 10 (0: a step per group); absent: the default's (0).
            let prec: Vec<u8> = one
                .split(',')
                .find_map(|v| v.trim().strip_prefix("prec="))
                .map(|f| f.split('.').map(|n| n.parse().unwrap()).collect())
                .unwrap_or_else(|| {
                    let mut p = d.precision.to_vec();
                    p.push(d.word_precision);
                    p
                });
            // A field `layer=85.80.80.85.85.140`: per layer, the row-step precisions in percent
            // (`QuantPlan::layer_precision`); absent: the default's.
            let layer: Option<Vec<u8>> = one
                .split(',')
                .find_map(|v| v.trim().strip_prefix("layer="))
                .map(|f| f.split('.').map(|n| n.parse().unwrap()).collect());
            let n: Vec<u32> = one
                .split(',')
                .filter(|v| {
                    let v = v.trim();
                    !v.starts_with("fit=") && !v.starts_with("prec=") && !v.starts_with("layer=")
                })
                .map(|v| v.trim().parse().unwrap())
                .collect();
            let name: &'static str = Box::leak(one.to_string().into_boxed_str());
            plans.push((
                name,
                QuantPlan {
                    fitted: std::array::from_fn(|i| fit.get(i).copied().unwrap_or(false)),
                    word_fitted: fit.get(6).copied().unwrap_or(false),
                    precision: std::array::from_fn(|i| prec.get(i).copied().unwrap_or(0)),
                    word_precision: prec.get(6).copied().unwrap_or(0),
                    bits: std::array::from_fn(|i| n[i] as u8),
                    last_bits: std::array::from_fn(|i| {
                        n[if n.len() >= 15 { 9 + i } else { i }] as u8
                    }),
                    layer_group: n[6] as usize,
                    word_bits: n[7] as u8,
                    word_group: n[8] as usize,
                    layer_precision: layer
                        .map_or(d.layer_precision, |l| std::array::from_fn(|i| l[i])),
                    ..d
                },
            ));
        }
    }
    if std::env::var_os("ENCODER_PLANS_SENSITIVITY").is_some() {
        sensitivity(&f32_encoder, &keep, &ranges, &text, &sentences, &exact);
    }
    // Book paragraphs neither calibrated on nor the labelled questions: a figure no plan was
    // chosen by.
    let held_out: Vec<String> = text
        .split("\n\n")
        .map(str::trim)
        .filter(|p| p.len() > 40)
        .skip(calib[0])
        .take(200)
        .map(|p| p.chars().take(120).collect())
        .collect();
    let held_exact: Vec<Vec<f32>> = held_out.iter().map(|s| f32_encoder.encode(s)).collect();
    let mut default = (0f32, 0f32, 0usize);
    let mut group_steps = (0f32, 0f32, 0usize);
    eprintln!("plan | deflated MB | raw MB | cosine min | p1 | mean | held-out mean");
    for (name, plan) in plans {
        let in_memory = f32_encoder.quantized_with(&keep, &plan, &ranges);
        let bytes = in_memory.to_bytes().unwrap();
        let shipped = book_retrieval::Encoder::from_bytes(&bytes).unwrap();
        let deflated = miniz_oxide::deflate::compress_to_vec(&bytes, 6).len();
        let mut cos: Vec<f32> = sentences
            .iter()
            .zip(&exact)
            .map(|(s, e)| cosine(&shipped.encode(s), e))
            .collect();
        cos.sort_by(f32::total_cmp);
        let mean = cos.iter().sum::<f32>() / cos.len() as f32;
        let held = held_out
            .iter()
            .zip(&held_exact)
            .map(|(s, e)| cosine(&shipped.encode(s), e))
            .sum::<f32>()
            / held_out.len().max(1) as f32;
        eprintln!(
            "{name} | {:.2} | {:.2} | {:.4} | {:.4} | {:.4} | {held:.4}",
            deflated as f64 / 1e6,
            bytes.len() as f64 / 1e6,
            cos[0],
            cos[cos.len() / 100],
            mean
        );
        if name == "group steps" {
            group_steps = (cos[0], mean, deflated);
        }
        if name == "default (row steps)" {
            default = (cos[0], mean, deflated);
            print_breakdown(&in_memory);
        }
    }
    assert!(
        default.0 >= 0.97,
        "default plan: cosine {} < 0.97",
        default.0
    );
    assert!(
        default.1 >= 0.99,
        "default plan: mean cosine {} < 0.99",
        default.1
    );
    assert!(
        default.2 <= 6_900_000,
        "default plan: {} B deflated",
        default.2
    );
    assert!(
        group_steps.0 >= 0.97 && group_steps.1 >= 0.99 && group_steps.2 <= 7_400_000,
        "group steps: {group_steps:?}"
    );
}

/// The word table's size against what readers get: the default plan's layers, the sample book's
/// tokens plus the first `common` ids (ASCII only) kept, and the labelled sentences' own tokens
/// NOT kept (a reader's question may use any word), with pruned tokens read as `[UNK]` or as the
/// kept row nearest their embedding (`Encoder::remap_pruned`). Prints, per setting, the deflated
/// file, its word table and row map, and the cosine to the f32 model (min, 1st percentile, mean).
/// By default the build's setting (6 000 common ids, `DEFAULT_PRUNED_WORDS`) and `[UNK]`, the
/// reading before it; asserts the build's figures as measured (min cosine 0.434, mean 0.912,
/// 6.352 MB deflated on 2026-11-30) and that it beats `[UNK]`. FORMAT.md's whole table:
/// `ENCODER_VOCAB_COMMON=6000,4000,3000,2000,1000,0 ENCODER_VOCAB_METRICS=unk,cosine0,squared`
/// (about 9 s a setting). `ENCODER_VOCAB_COMMON` chooses the common-vocabulary sizes,
/// `ENCODER_VOCAB_METRICS` (below) which readings of pruned tokens, `ENCODER_VOCAB_MIN_BOOK` (below)
/// adds settings that also prune the book's rare tokens.
#[test]
#[ignore = "needs the model (BOOK_CHAT_MODEL_DIR or scripts/setup.sh); run in release"]
fn pruned_vocabulary_size_and_fidelity() {
    use book_retrieval::encoder::PrunedWords;
    let f32_encoder = model::load_f32_encoder(&needs::model_dir()).unwrap();
    let mut text = String::new();
    sample_text(&needs::repo().join("www/docs"), &mut text);
    let vocab = f32_encoder.tokenizer.vocab_len();
    let mut book_count = vec![0usize; vocab];
    for id in f32_encoder.tokenizer.encode(&text, usize::MAX) {
        book_count[id as usize] += 1;
    }
    let with_common_min = |common: usize, min_count: usize| -> Vec<bool> {
        index_builder::build::common_vocab(&f32_encoder, common)
            .iter()
            .zip(&book_count)
            .map(|(a, &n)| *a || n >= min_count.max(1))
            .collect()
    };
    let with_common = |common: usize| with_common_min(common, 1);
    let paragraphs = calibration_paragraphs(&text, 256, 120);
    let d = QuantPlan::default();
    let ranges = f32_encoder.input_ranges(&paragraphs, &d);
    let layers = f32_encoder.quantized_with(&with_common(6000), &d, &ranges);
    let sentences = sentences();
    let exact: Vec<Vec<f32>> = sentences.iter().map(|s| f32_encoder.encode(s)).collect();
    let mut all_kept = with_common(6000);
    for s in &sentences {
        for id in f32_encoder.tokenizer.encode(s, usize::MAX) {
            all_kept[id as usize] = true;
        }
    }
    let commons: Vec<usize> = std::env::var("ENCODER_VOCAB_COMMON")
        .map(|v| v.split(',').map(|n| n.trim().parse().unwrap()).collect())
        .unwrap_or_else(|_| vec![6000]);
    let mut settings: Vec<(String, Vec<bool>, PrunedWords)> = vec![(
        "6000, sentences' tokens kept (encoder_plans' measure)".into(),
        all_kept,
        PrunedWords::Unk,
    )];
    // ENCODER_VOCAB_METRICS="unk,squared,cosine0,cosine40,...": how pruned tokens are read.
    let metrics: Vec<PrunedWords> = std::env::var("ENCODER_VOCAB_METRICS")
        .unwrap_or_else(|_| "unk,cosine0".into())
        .split(',')
        .map(|m| match m.trim() {
            "unk" => PrunedWords::Unk,
            "squared" => PrunedWords::NearestSquared,
            c => PrunedWords::NearestCosine {
                min_percent: c.trim_start_matches("cosine").parse().unwrap(),
            },
        })
        .collect();
    for &c in &commons {
        for &p in &metrics {
            settings.push((format!("{c} {p:?}"), with_common(c), p));
        }
    }
    // ENCODER_VOCAB_MIN_BOOK="common:min,...": the book's tokens kept only when the book uses them
    // at least `min` times (the rest remapped too).
    if let Ok(spec) = std::env::var("ENCODER_VOCAB_MIN_BOOK") {
        for one in spec.split(',').filter(|s| !s.is_empty()) {
            let (c, m) = one.split_once(':').unwrap();
            let (c, m) = (c.trim().parse().unwrap(), m.trim().parse().unwrap());
            for &p in &metrics {
                settings.push((
                    format!("{c}, book tokens used >= {m} times, {p:?}"),
                    with_common_min(c, m),
                    p,
                ));
            }
        }
    }
    eprintln!(
        "common vocab, pruned | rows | stand-ins | deflated MB | words kB | row_of kB | remap s | cosine min | p1 | mean | sentences with a pruned token"
    );
    // (min cosine, mean cosine, deflated bytes) of the build's setting and of `[UNK]`'s.
    let build_setting = format!("6000 {:?}", index_builder::build::DEFAULT_PRUNED_WORDS);
    let (mut build, mut unk) = (None, None);
    for (name, keep, pruned) in settings {
        let mut e = layers.clone();
        e.words = f32_encoder.quantized_words(&keep, &d);
        let t = std::time::Instant::now();
        f32_encoder.remap_pruned(&mut e.words, pruned);
        let remap_s = t.elapsed().as_secs_f32();
        let bytes = e.to_bytes().unwrap();
        let shipped = book_retrieval::Encoder::from_bytes(&bytes).unwrap();
        let deflated = miniz_oxide::deflate::compress_to_vec(&bytes, 6).len();
        let part = |want: &str| -> usize {
            e.file_parts()
                .unwrap()
                .iter()
                .filter(|(n, _)| n.starts_with(want))
                .map(|(_, b)| miniz_oxide::deflate::compress_to_vec(b, 6).len())
                .sum()
        };
        let (rows, pointed) = match &e.words {
            book_retrieval::encoder::WordEmbeddings::Grouped { row_of, table } => (
                table.rows,
                row_of
                    .iter()
                    .filter(|&&r| r != book_retrieval::encoder::NO_ROW)
                    .count(),
            ),
            _ => (0, 0),
        };
        let stand_ins = pointed - rows;
        let pruned_sentences = sentences
            .iter()
            .filter(|s| {
                f32_encoder
                    .tokenizer
                    .encode(s, usize::MAX)
                    .iter()
                    // [CLS] and [SEP] (first and last) are always stored.
                    .skip(1)
                    .rev()
                    .skip(1)
                    .any(|&id| !keep[id as usize])
            })
            .count();
        let mut cos: Vec<f32> = sentences
            .iter()
            .zip(&exact)
            .map(|(s, x)| cosine(&shipped.encode(s), x))
            .collect();
        cos.sort_by(f32::total_cmp);
        let mean = cos.iter().sum::<f32>() / cos.len() as f32;
        eprintln!(
            "{name} | {rows} | {stand_ins} | {:.3} | {:.1} | {:.1} | {remap_s:.2} | {:.4} | {:.4} | {mean:.4} | {pruned_sentences}/{}",
            deflated as f64 / 1e6,
            part("words") as f64 / 1e3,
            part("row_of") as f64 / 1e3,
            cos[0],
            cos[cos.len() / 100],
            sentences.len()
        );
        if name == build_setting {
            build = Some((cos[0], mean, deflated));
        } else if name == "6000 Unk" {
            unk = Some((cos[0], mean, deflated));
        }
    }
    // The build's reading of pruned tokens, as measured, and better than `[UNK]` (0.855 mean).
    if let Some((min, mean, deflated)) = build {
        assert!(min >= 0.40, "build's setting: min cosine {min} < 0.40");
        assert!(mean >= 0.90, "build's setting: mean cosine {mean} < 0.90");
        assert!(
            deflated <= 6_450_000,
            "build's setting: {deflated} B deflated"
        );
        if let Some((_, unk_mean, _)) = unk {
            assert!(
                mean > unk_mean + 0.03,
                "nearest {mean} against [UNK] {unk_mean}"
            );
        }
    } else {
        assert!(
            std::env::var_os("ENCODER_VOCAB_COMMON").is_some()
                || std::env::var_os("ENCODER_VOCAB_METRICS").is_some(),
            "the build's setting ({build_setting}) was not measured"
        );
    }
}

/// The position table at 8 bits with one step a row (the row's largest |value| over 127) instead
/// of bf16, measured in memory (the file format has no such field yet): deflated size of the codes
/// and the row steps against the bf16 part, and the cosine to the f32 model (sentences' tokens
/// kept, to see the positions' rounding alone). Also 6 bits (step = max / 31), for the trend.
#[test]
#[ignore = "needs the model (BOOK_CHAT_MODEL_DIR or scripts/setup.sh); run in release"]
fn positions_at_8_bits() {
    use book_retrieval::encoder::grouped::{from_bf16, to_bf16};
    let f32_encoder = model::load_f32_encoder(&needs::model_dir()).unwrap();
    let mut text = String::new();
    sample_text(&needs::repo().join("www/docs"), &mut text);
    let sentences = sentences();
    let mut keep = index_builder::build::common_vocab(&f32_encoder, 6000);
    for id in f32_encoder.tokenizer.encode(&text, usize::MAX) {
        keep[id as usize] = true;
    }
    for s in &sentences {
        for id in f32_encoder.tokenizer.encode(s, usize::MAX) {
            keep[id as usize] = true;
        }
    }
    let paragraphs = calibration_paragraphs(&text, 256, 120);
    let d = QuantPlan::default();
    let ranges = f32_encoder.input_ranges(&paragraphs, &d);
    let base = f32_encoder.quantized_with(&keep, &d, &ranges);
    let exact: Vec<Vec<f32>> = sentences.iter().map(|s| f32_encoder.encode(s)).collect();
    let h = base.config.hidden;
    let measure = |e: &book_retrieval::Encoder| {
        let mut cos: Vec<f32> = sentences
            .iter()
            .zip(&exact)
            .map(|(s, x)| cosine(&e.encode(s), x))
            .collect();
        cos.sort_by(f32::total_cmp);
        (cos[0], cos.iter().sum::<f32>() / cos.len() as f32)
    };
    let bf16: Vec<u8> = base
        .positions
        .iter()
        .flat_map(|&v| to_bf16(v).to_le_bytes())
        .collect();
    let (min, mean) = measure(&base);
    eprintln!(
        "positions bf16: {:.1} kB deflated; cosine min {min:.4} mean {mean:.4}",
        miniz_oxide::deflate::compress_to_vec(&bf16, 6).len() as f64 / 1e3
    );
    for qmax in [127f32, 31.0] {
        let mut e = base.clone();
        let mut codes = Vec::with_capacity(e.positions.len());
        let mut steps = Vec::new();
        for row in e.positions.chunks_exact_mut(h) {
            let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
            let step = from_bf16(to_bf16(max / qmax));
            steps.extend(to_bf16(step).to_le_bytes());
            for v in row.iter_mut() {
                let c = if step > 0.0 {
                    (*v / step).round().clamp(-qmax, qmax)
                } else {
                    0.0
                };
                codes.push(c as i8 as u8);
                *v = c * step;
            }
        }
        let size = miniz_oxide::deflate::compress_to_vec(&codes, 6).len()
            + miniz_oxide::deflate::compress_to_vec(&steps, 6).len();
        let (min, mean) = measure(&e);
        eprintln!(
            "positions ±{qmax} codes, one step a row: {:.1} kB deflated; cosine min {min:.4} mean {mean:.4}",
            size as f64 / 1e3
        );
    }
}
