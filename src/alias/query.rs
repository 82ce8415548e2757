//! The `cargo tensor-lint alias` front ends over concrete views of one buffer: a readable
//! explanation of one query, and the streaming JSON-lines protocol (`alias --jsonl`), one
//! query object per line in and one answer object per line out.
//!
//! A view is `{"offset":INT,"shape":[INT…],"strides":[INT…]}` in elements of one buffer,
//! or in the compact form `OFFSET:[SHAPE]:[STRIDES]` (`0:[2,3]:[3,1]`) on the command line.

use std::fmt::Write as _;
use std::io::{self, BufRead, Write};

use serde_json::Value;

use tensor_lint_analyzer::oracle::{
    internal_overlap, overlap, solver_timeout_ms, Answer, Assumptions, RootId, Verdict, View,
};

/// More dimensions than any tensor has; bounds the work one query line can ask for.
const MAX_DIMS: usize = 64;

/// A view description that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryError {
    pub message: String,
}

impl QueryError {
    fn new(message: impl Into<String>) -> QueryError {
        QueryError {
            message: message.into(),
        }
    }
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for QueryError {}

/// A concrete view as the queries describe it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewSpec {
    pub offset: i64,
    pub shape: Vec<i64>,
    pub strides: Vec<i64>,
}

impl ViewSpec {
    fn check(self) -> Result<ViewSpec, QueryError> {
        if self.shape.len() != self.strides.len() {
            return Err(QueryError::new(format!(
                "shape has {} dimensions but strides has {}",
                self.shape.len(),
                self.strides.len()
            )));
        }
        if self.shape.len() > MAX_DIMS {
            return Err(QueryError::new(format!(
                "{} dimensions is more than the supported {MAX_DIMS}",
                self.shape.len()
            )));
        }
        if let Some(l) = self.shape.iter().find(|&&l| l < 0) {
            return Err(QueryError::new(format!("negative dimension length {l}")));
        }
        Ok(self)
    }

    pub fn to_view(&self) -> View {
        View::strided(RootId(0), 1, self.offset, &self.shape, &self.strides)
    }

    /// Reads the JSON object form.
    pub fn from_json(v: &Value) -> Result<ViewSpec, QueryError> {
        let obj = v.as_object().ok_or_else(|| {
            QueryError::new("a view must be an object with `offset`, `shape` and `strides`")
        })?;
        let int = |key: &str, x: &Value| {
            x.as_i64().ok_or_else(|| {
                QueryError::new(format!(
                    "`{key}` must hold integers that fit in 64 bits, found `{x}`"
                ))
            })
        };
        let list = |key: &str| -> Result<Vec<i64>, QueryError> {
            let arr = obj
                .get(key)
                .ok_or_else(|| QueryError::new(format!("missing `{key}`")))?
                .as_array()
                .ok_or_else(|| QueryError::new(format!("`{key}` must be an array of integers")))?;
            arr.iter().map(|x| int(key, x)).collect()
        };
        let offset = int(
            "offset",
            obj.get("offset")
                .ok_or_else(|| QueryError::new("missing `offset`"))?,
        )?;
        ViewSpec {
            offset,
            shape: list("shape")?,
            strides: list("strides")?,
        }
        .check()
    }

    /// Reads the compact form `OFFSET:[SHAPE]:[STRIDES]`.
    pub fn from_compact(text: &str) -> Result<ViewSpec, QueryError> {
        let parts: Vec<&str> = text.split(':').map(str::trim).collect();
        let [offset, shape, strides] = parts.as_slice() else {
            return Err(QueryError::new(format!(
                "expected `OFFSET:[SHAPE]:[STRIDES]` such as `0:[2,3]:[3,1]`, found `{text}`"
            )));
        };
        let offset = offset
            .parse::<i64>()
            .map_err(|_| QueryError::new(format!("offset `{offset}` is not a 64-bit integer")))?;
        let list = |what: &str, s: &str| -> Result<Vec<i64>, QueryError> {
            let inner = s
                .strip_prefix('[')
                .and_then(|s| s.strip_suffix(']'))
                .ok_or_else(|| {
                    QueryError::new(format!(
                        "{what} `{s}` must be a bracketed list such as `[2,3]`"
                    ))
                })?;
            if inner.trim().is_empty() {
                return Ok(Vec::new());
            }
            inner
                .split(',')
                .map(|x| {
                    x.trim().parse::<i64>().map_err(|_| {
                        QueryError::new(format!("`{}` in {what} is not a 64-bit integer", x.trim()))
                    })
                })
                .collect()
        };
        ViewSpec {
            offset,
            shape: list("shape", shape)?,
            strides: list("strides", strides)?,
        }
        .check()
    }

    /// Either form, told apart by a leading `{`.
    pub fn parse(text: &str) -> Result<ViewSpec, QueryError> {
        let t = text.trim();
        if t.starts_with('{') {
            let v: Value = serde_json::from_str(t)
                .map_err(|e| QueryError::new(format!("invalid JSON view: {e}")))?;
            ViewSpec::from_json(&v)
        } else {
            ViewSpec::from_compact(t)
        }
    }
}

impl std::fmt::Display for ViewSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "offset {}, shape {}, strides {}",
            self.offset,
            list(&self.shape),
            list(&self.strides)
        )
    }
}

fn list(xs: &[i64]) -> String {
    let inner: Vec<String> = xs.iter().map(i64::to_string).collect();
    format!("[{}]", inner.join(", "))
}

fn indexed(name: &str, idx: &[i64]) -> String {
    let inner: Vec<String> = idx.iter().map(i64::to_string).collect();
    format!("`{name}[{}]`", inner.join(", "))
}

/// The three answers one query line needs.
struct Decision {
    overlap: Answer,
    a_internal: Answer,
    b_internal: Answer,
}

fn decide(a: &ViewSpec, b: &ViewSpec) -> Decision {
    let asm = Assumptions::new();
    let (va, vb) = (a.to_view(), b.to_view());
    Decision {
        overlap: overlap(&va, &vb, &asm),
        a_internal: internal_overlap(&va, &asm),
        b_internal: internal_overlap(&vb, &asm),
    }
}

fn tri_state(ans: &Answer) -> Value {
    if ans.undecided {
        Value::Null
    } else {
        Value::Bool(ans.verdict != Verdict::NoAlias)
    }
}

fn answer_line(id: &Value, d: &Decision) -> String {
    let witness = match (&d.overlap.witness, d.overlap.undecided) {
        (Some(w), false) => serde_json::json!({ "a": w.a, "b": w.b }),
        _ => Value::Null,
    };
    format!(
        "{{\"id\":{},\"overlap\":{},\"a_internal_overlap\":{},\"b_internal_overlap\":{},\"witness\":{},\"decided_by\":{}}}",
        id,
        tri_state(&d.overlap),
        tri_state(&d.a_internal),
        tri_state(&d.b_internal),
        witness,
        Value::String(d.overlap.decided_by.as_str().to_string()),
    )
}

fn error_line(id: &Value, message: &str) -> String {
    format!(
        "{{\"id\":{},\"error\":{}}}",
        id,
        Value::String(message.to_string())
    )
}

/// Answers one query line: the answer line, or an error line with the id if one was read.
fn answer_query(line: &str) -> String {
    let query: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return error_line(&Value::Null, &format!("invalid JSON: {e}")),
    };
    let Some(obj) = query.as_object() else {
        return error_line(
            &Value::Null,
            "a query must be an object with `id`, `a` and `b`",
        );
    };
    let id = obj.get("id").cloned().unwrap_or(Value::Null);
    if !obj.contains_key("id") {
        return error_line(&id, "missing `id`");
    }
    let side = |key: &str| -> Result<ViewSpec, String> {
        let v = obj.get(key).ok_or_else(|| format!("missing `{key}`"))?;
        ViewSpec::from_json(v).map_err(|e| format!("`{key}`: {e}"))
    };
    match (side("a"), side("b")) {
        (Ok(a), Ok(b)) => answer_line(&id, &decide(&a, &b)),
        (Err(e), _) | (_, Err(e)) => error_line(&id, &e),
    }
}

/// Reads one query per line and writes one answer per line, flushing each answer as
/// soon as it is computed. Blank lines are skipped; malformed lines get an error answer
/// and processing continues. Errors are only those of reading or writing.
pub fn run_jsonl(mut input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if input.read_until(b'\n', &mut buf)? == 0 {
            return Ok(());
        }
        let line = String::from_utf8_lossy(&buf);
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let answer = answer_query(line);
        output.write_all(answer.as_bytes())?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
}

fn internal_sentence(name: &str, ans: &Answer) -> String {
    if ans.undecided {
        return format!("{name}: internal overlap undecided (the solver gave up)");
    }
    match (&ans.witness, ans.verdict) {
        (_, Verdict::NoAlias) => format!("{name} has no internal overlap"),
        (Some(w), _) => format!(
            "{name} has internal overlap: {} and {} both reach element {}",
            indexed(name, &w.a),
            indexed(name, &w.b),
            w.element
        ),
        (None, _) => format!("{name} has internal overlap"),
    }
}

/// The readable explanation `cargo tensor-lint alias VIEW VIEW` prints.
pub fn explain_cli(a_text: &str, b_text: &str) -> Result<String, QueryError> {
    let a = ViewSpec::parse(a_text).map_err(|e| QueryError::new(format!("view `a`: {e}")))?;
    let b = ViewSpec::parse(b_text).map_err(|e| QueryError::new(format!("view `b`: {e}")))?;
    let d = decide(&a, &b);
    let mut out = String::new();
    let by = d.overlap.decided_by.as_str();
    let headline = if d.overlap.undecided {
        format!(
            "may alias? undecided — the solver gave up within its {} ms limit, so the views may overlap",
            solver_timeout_ms()
        )
    } else if d.overlap.verdict == Verdict::NoAlias {
        format!("may alias? no — the views never overlap (decided by {by})")
    } else {
        format!("may alias? yes — the views overlap (decided by {by})")
    };
    let _ = writeln!(out, "{headline}");
    let _ = writeln!(out, "  a = {a}");
    let _ = writeln!(out, "  b = {b}");
    if let (Some(w), false) = (&d.overlap.witness, d.overlap.undecided) {
        let _ = writeln!(
            out,
            "witness: {} and {} both reach element {}",
            indexed("a", &w.a),
            indexed("b", &w.b),
            w.element
        );
    }
    let (ia, ib) = (
        internal_sentence("a", &d.a_internal),
        internal_sentence("b", &d.b_internal),
    );
    if d.a_internal.verdict == Verdict::NoAlias && d.b_internal.verdict == Verdict::NoAlias {
        let _ = writeln!(out, "{ia}; {ib}");
    } else {
        let _ = writeln!(out, "{ia}");
        let _ = writeln!(out, "{ib}");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &str) -> Vec<Value> {
        let mut out = Vec::new();
        let res = run_jsonl(input.as_bytes(), &mut out);
        assert!(res.is_ok());
        String::from_utf8_lossy(&out)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
            .collect()
    }

    #[test]
    fn jsonl_answers_overlap_with_witness() {
        let out = run(
            r#"{"id":1,"a":{"offset":0,"shape":[2],"strides":[1]},"b":{"offset":1,"shape":[2],"strides":[1]}}"#,
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0]["id"], 1);
        assert_eq!(out[0]["overlap"], true);
        assert_eq!(out[0]["a_internal_overlap"], false);
        assert_eq!(out[0]["witness"]["a"], serde_json::json!([1]));
        assert_eq!(out[0]["witness"]["b"], serde_json::json!([0]));
        assert!(out[0]["decided_by"].is_string());
    }

    #[test]
    fn jsonl_echoes_any_id_and_reports_disjoint_views() {
        let out = run(
            r#"{"id":{"k":["x"]},"a":{"offset":0,"shape":[3],"strides":[2]},"b":{"offset":1,"shape":[3],"strides":[2]}}"#,
        );
        assert_eq!(out[0]["id"], serde_json::json!({"k":["x"]}));
        assert_eq!(out[0]["overlap"], false);
        assert_eq!(out[0]["witness"], Value::Null);
        assert_eq!(out[0]["decided_by"], "gcd");
    }

    #[test]
    fn jsonl_reports_errors_and_continues() {
        let input = concat!(
            "not json\n",
            "\n",
            r#"{"id":"q","a":{"offset":0,"shape":[2,2],"strides":[1]},"b":{"offset":0,"shape":[],"strides":[]}}"#,
            "\n",
            r#"{"id":7,"a":{"offset":0,"shape":[-1],"strides":[1]},"b":{"offset":0,"shape":[],"strides":[]}}"#,
            "\n",
            r#"{"id":8,"a":{"offset":0,"shape":[4],"strides":[0]},"b":{"offset":0,"shape":[],"strides":[]}}"#,
            "\n",
        );
        let out = run(input);
        assert_eq!(out.len(), 4);
        assert_eq!(out[0]["id"], Value::Null);
        assert!(out[0]["error"].is_string());
        assert_eq!(out[1]["id"], "q");
        assert!(out[1]["error"]
            .as_str()
            .is_some_and(|e| e.contains("strides")));
        assert_eq!(out[2]["id"], 7);
        assert!(out[2]["error"].is_string());
        assert_eq!(out[3]["overlap"], true);
        assert_eq!(out[3]["a_internal_overlap"], true);
        assert_eq!(out[3]["b_internal_overlap"], false);
    }

    #[test]
    fn jsonl_streams_each_answer_before_reading_on() {
        struct Counting {
            flushes: usize,
            data: Vec<u8>,
        }
        impl Write for Counting {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                self.data.extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                self.flushes += 1;
                Ok(())
            }
        }
        let line = r#"{"id":1,"a":{"offset":0,"shape":[2],"strides":[1]},"b":{"offset":5,"shape":[2],"strides":[1]}}"#;
        let input = format!("{line}\n{line}\n");
        let mut out = Counting {
            flushes: 0,
            data: Vec::new(),
        };
        assert!(run_jsonl(input.as_bytes(), &mut out).is_ok());
        assert_eq!(out.flushes, 2);
        assert_eq!(String::from_utf8_lossy(&out.data).lines().count(), 2);
    }

    #[test]
    fn compact_and_json_views_parse_alike() {
        let c = ViewSpec::parse("0:[2,3]:[3,1]");
        let j = ViewSpec::parse(r#"{"offset":0,"shape":[2,3],"strides":[3,1]}"#);
        assert_eq!(c, j);
        assert!(ViewSpec::parse("5:[]:[]").is_ok());
        assert!(ViewSpec::parse("0:[2]").is_err());
        assert!(ViewSpec::parse("x:[2]:[1]").is_err());
        assert!(ViewSpec::parse("0:[2]:[1,1]").is_err());
    }

    #[test]
    fn explanation_names_decision_path_and_witness() {
        let text = explain_cli("0:[2,3]:[3,1]", "2:[3]:[3]").unwrap_or_default();
        assert!(text.starts_with("may alias? yes — the views overlap (decided by "));
        assert!(text.contains("a = offset 0, shape [2, 3], strides [3, 1]"));
        assert!(text.contains("witness: `a[0, 2]` and `b[0]` both reach element 2"));
        assert!(text.contains("a has no internal overlap; b has no internal overlap"));
        let text = explain_cli("0:[4]:[2]", "1:[4]:[2]").unwrap_or_default();
        assert!(text.starts_with("may alias? no — the views never overlap (decided by gcd)"));
        assert!(!text.contains("witness"));
        let text = explain_cli("0:[2,2]:[1,0]", "9:[1]:[1]").unwrap_or_default();
        assert!(
            text.contains("a has internal overlap: `a[0, 0]` and `a[0, 1]` both reach element 0")
        );
        assert!(explain_cli("0:[2]:[1]", "nonsense").is_err());
    }
}
