//! `cargo tensor-lint alias --jsonl` against a brute-force checker: random concrete views
//! (1–4 dimensions, negative and zero strides, zero-length dimensions) whose address
//! sets are small enough to enumerate, compared answer by answer.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_cargo-tensor-lint");

/// xorshift64*: a fixed, dependency-free stream of test cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
}

#[derive(Clone, Debug)]
struct Spec {
    offset: i64,
    shape: Vec<i64>,
    strides: Vec<i64>,
}

impl Spec {
    fn random(rng: &mut Rng) -> Spec {
        let ndim = rng.range(1, 4) as usize;
        let shape = (0..ndim).map(|_| rng.range(0, 4)).collect();
        let strides = (0..ndim).map(|_| rng.range(-7, 7)).collect();
        Spec {
            offset: rng.range(-25, 25),
            shape,
            strides,
        }
    }

    fn json(&self) -> Value {
        json!({"offset": self.offset, "shape": self.shape, "strides": self.strides})
    }

    fn tuples(&self) -> Vec<Vec<i64>> {
        let mut out = vec![Vec::new()];
        for &l in &self.shape {
            out = out
                .into_iter()
                .flat_map(|t: Vec<i64>| {
                    (0..l).map(move |x| {
                        let mut t = t.clone();
                        t.push(x);
                        t
                    })
                })
                .collect();
        }
        out
    }

    fn address(&self, t: &[i64]) -> i64 {
        self.offset + self.strides.iter().zip(t).map(|(s, x)| s * x).sum::<i64>()
    }

    fn addresses(&self) -> BTreeSet<i64> {
        self.tuples().iter().map(|t| self.address(t)).collect()
    }

    fn internal_overlap(&self) -> bool {
        self.addresses().len() < self.tuples().len()
    }

    fn contains(&self, t: &[i64]) -> bool {
        t.len() == self.shape.len() && t.iter().zip(&self.shape).all(|(x, l)| 0 <= *x && x < l)
    }
}

fn ints(v: &Value) -> Option<Vec<i64>> {
    v.as_array()?.iter().map(Value::as_i64).collect()
}

/// Runs the binary on `input`, returning its stdout lines.
fn run_jsonl(input: String) -> Vec<String> {
    let mut child = Command::new(BIN)
        .args(["alias", "--jsonl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let stdout = child.stdout.take().expect("stdout is piped");
    let lines: Vec<String> = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .collect();
    assert!(writer.join().is_ok_and(|r| r.is_ok()));
    assert!(child.wait().is_ok_and(|s| s.success()));
    lines
}

#[test]
fn ten_thousand_random_queries_agree_with_brute_force() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let queries: Vec<(Spec, Spec)> = (0..10_000)
        .map(|_| (Spec::random(&mut rng), Spec::random(&mut rng)))
        .collect();
    let input: String = queries
        .iter()
        .enumerate()
        .map(|(id, (a, b))| format!("{}\n", json!({"id": id, "a": a.json(), "b": b.json()})))
        .collect();
    let lines = run_jsonl(input);
    assert_eq!(lines.len(), queries.len());
    let mut disagreements = Vec::new();
    for (id, (line, (a, b))) in lines.iter().zip(&queries).enumerate() {
        let ans: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        let truth = !a.addresses().is_disjoint(&b.addresses());
        let mut ok = ans["id"] == json!(id)
            && ans["overlap"] == json!(truth)
            && ans["a_internal_overlap"] == json!(a.internal_overlap())
            && ans["b_internal_overlap"] == json!(b.internal_overlap())
            && ans["decided_by"].as_str().is_some_and(|s| !s.is_empty());
        if truth {
            let (wa, wb) = (ints(&ans["witness"]["a"]), ints(&ans["witness"]["b"]));
            ok &= match (wa, wb) {
                (Some(wa), Some(wb)) => {
                    a.contains(&wa) && b.contains(&wb) && a.address(&wa) == b.address(&wb)
                }
                _ => false,
            };
        } else {
            ok &= ans["witness"].is_null();
        }
        if !ok {
            disagreements.push(format!("{a:?} {b:?} -> {line}"));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements, first: {}",
        disagreements.len(),
        disagreements[0]
    );
}

#[test]
fn malformed_lines_get_error_answers_and_processing_continues() {
    let input = concat!(
        "{\"id\":\"x\",\"a\":{\"offset\":0,\"shape\":[2],\"strides\":[]},\"b\":{\"offset\":0,\"shape\":[1],\"strides\":[1]}}\n",
        "this is not json\n",
        "{\"id\":[1,2],\"a\":{\"offset\":0,\"shape\":[3],\"strides\":[1]},\"b\":{\"offset\":3,\"shape\":[1],\"strides\":[1]}}\n",
    );
    let lines = run_jsonl(input.to_string());
    assert_eq!(lines.len(), 3);
    let answers: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
        .collect();
    assert_eq!(answers[0]["id"], "x");
    assert!(answers[0]["error"].is_string());
    assert!(answers[1]["error"].is_string());
    assert_eq!(answers[2]["id"], json!([1, 2]));
    assert_eq!(answers[2]["overlap"], false);
    assert_eq!(answers[2]["decided_by"], "interval");
}

#[test]
fn answers_stream_before_stdin_closes() {
    let mut child = Command::new(BIN)
        .args(["alias", "--jsonl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
    let query = "{\"id\":1,\"a\":{\"offset\":0,\"shape\":[2],\"strides\":[1]},\"b\":{\"offset\":1,\"shape\":[2],\"strides\":[1]}}\n";
    assert!(stdin.write_all(query.as_bytes()).is_ok() && stdin.flush().is_ok());
    let mut line = String::new();
    assert!(stdout.read_line(&mut line).is_ok());
    let ans: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
    assert_eq!(ans["overlap"], true);
    drop(stdin);
    assert!(child.wait().is_ok_and(|s| s.success()));
}

#[test]
fn two_views_are_explained() {
    let out = Command::new(BIN)
        .args([
            "alias",
            "0:[2,3]:[3,1]",
            "{\"offset\":2,\"shape\":[3],\"strides\":[3]}",
        ])
        .output()
        .expect("the binary runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.starts_with("may alias? yes"), "{text}");
    assert!(text.contains("both reach element"), "{text}");
}
