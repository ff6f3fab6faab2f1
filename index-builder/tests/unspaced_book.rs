//! A book in a script written without spaces (Chinese), built and asked through the CLI as an
//! author's `--language zh` build is: its readers' questions are answered with quotes in their
//! language, and a question the book does not cover is refused. Before the analyzer dropped
//! Chinese function words, "什么是节点？" (what is a node?) was refused in a book with a section on
//! nodes; before the answer core counted Chinese words by characters, no Chinese sentence was
//! long enough to quote.

use std::path::Path;
use std::process::Command;

mod needs;

const INTRO: &str = "---
title: 机器人操作系统简介
---

# 机器人操作系统简介

ROS 2 是一个用于编写机器人软件的框架。它提供了硬件抽象、设备驱动、库和工具，帮助开发者创建机器人应用程序。

## 节点

节点是 ROS 图中执行计算的进程。每个节点应该只负责一个模块化的功能，例如控制车轮电机或发布激光雷达数据。节点之间通过话题、服务和动作进行通信。

## 话题

话题是节点之间交换消息的命名总线。发布者将消息发送到话题，订阅者从话题接收消息。一个话题可以有多个发布者和多个订阅者。

## 安装

在 Ubuntu 24.04 上安装 ROS 2 Jazzy 需要先设置软件源，然后使用 apt 安装 ros-jazzy-desktop 软件包。安装完成后，需要在每个终端中加载环境设置脚本。
";

fn run(args: &[&str], model_dir: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_index-builder"))
        .args(args)
        .env("BOOK_CHAT_MODEL_DIR", model_dir)
        .output()
        .expect("index-builder did not run");
    assert!(
        out.status.success(),
        "index-builder {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
#[ignore = "needs the model (scripts/setup.sh)"]
fn a_chinese_book_answers_its_readers_with_quotes() {
    let model_dir = needs::model_dir();
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("intro.md"), INTRO).unwrap();
    let out = tmp.path().join("out");
    let (docs, out) = (docs.to_str().unwrap(), out.to_str().unwrap());
    run(
        &[
            "build",
            "--docs",
            docs,
            "--out",
            out,
            "--language",
            "zh",
            "--quiet",
        ],
        &model_dir,
    );
    let questions = [
        ("node", "什么是节点？"),
        ("install", "如何安装ROS 2？"),
        ("talk", "节点之间如何通信"),
        ("weather", "今天天气怎么样"),
    ];
    let batch = tmp.path().join("batch.jsonl");
    let lines: Vec<String> = questions
        .iter()
        .map(|(id, q)| serde_json::json!({"id": id, "question": q}).to_string())
        .collect();
    std::fs::write(&batch, lines.join("\n")).unwrap();
    let answers: Vec<serde_json::Value> = run(
        &["answer", "--index", out, "--batch", batch.to_str().unwrap()],
        &model_dir,
    )
    .lines()
    .map(|l| serde_json::from_str(l).unwrap())
    .collect();
    assert_eq!(answers.len(), questions.len());
    for (a, (id, q)) in answers.iter().zip(questions) {
        assert_eq!(a["id"], id);
        let first_quote = &a["quotes"][0];
        match id {
            "weather" => assert_eq!(a["refused"], true, "{q}: {a}"),
            _ => {
                assert_eq!(a["refused"], false, "{q}: {a}");
                let want = if id == "install" { "安装" } else { "节点" };
                assert_eq!(first_quote["heading"], want, "{q}: {a}");
                assert!(
                    first_quote["text"]
                        .as_str()
                        .is_some_and(|t| t.ends_with('。')),
                    "{q}: a whole sentence is quoted: {a}"
                );
            }
        }
    }
}
