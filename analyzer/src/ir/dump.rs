//! The IR as text, for people: `cargo tensor-lint --dump-ir FILE.rs[:FUNCTION]` and the
//! IR snapshot tests print every function's blocks and ops with their source lines, the
//! summaries computed for it and its dataflow facts.

use std::fmt::Write as _;

use crate::dataflow::{AllocState, FnFacts};
use crate::ir::structs::StructItem;
use crate::ir::{
    BodyKind, Callee, DuplicateKind, EscapeKind, FnIr, Op, ReleaseKind, ReleasedBy, ReturnKind,
    RootOrigin, SliceSpec, Task, Terminator, ValueId, ValueKind, ViewOp,
};
use crate::oracle::View;
use crate::program::CrateIr;
use crate::source::{SourceMap, Span};
use crate::summary::{FnSummary, ReturnSummary};

/// Readable IR dump of every function, or only those whose name (or `Type::method`
/// path) matches `function`.
pub fn dump_ir(ir: &CrateIr, sources: &SourceMap, function: Option<&str>) -> String {
    let mut out = String::new();
    if function.is_none() {
        for s in &ir.structs {
            dump_struct(&mut out, s);
        }
    }
    for f in ir.functions() {
        let Some(facts) = ir.facts(f.id) else {
            continue;
        };
        if let Some(want) = function {
            let matches =
                f.name == want || f.path == want || f.path.ends_with(&format!("::{want}"));
            if !matches {
                continue;
            }
        }
        let summary = ir.summary(f.id);
        dump_fn(&mut out, ir, f, facts, summary, sources);
    }
    out
}

fn dump_struct(out: &mut String, s: &StructItem) {
    let mut path = s.module.clone();
    path.push(s.name.clone());
    let align = s
        .repr_align
        .map_or_else(String::new, |a| format!(" align({a})"));
    let size = s
        .size
        .map_or_else(|| "size ?".to_string(), |b| format!("{b} bytes"));
    let fields: Vec<String> = s
        .fields
        .iter()
        .map(|f| match f.bytes {
            Some(b) => format!("{}: {} ({b} bytes)", f.name, f.ty_name),
            None => format!("{}: {}", f.name, f.ty_name),
        })
        .collect();
    let _ = writeln!(
        out,
        "struct {}{align}, {size} {{ {} }}",
        path.join("::"),
        fields.join(", ")
    );
}

fn loc(sources: &SourceMap, span: Span) -> String {
    if sources.files().nth(span.file.0 as usize).is_none() {
        return "?".into();
    }
    let lc = sources.get(span.file).line_col(span.lo as usize);
    format!("{}:{}", lc.line, lc.column)
}

fn view_text(v: &View) -> String {
    let dims: Vec<String> = v
        .dims
        .iter()
        .map(|d| format!("{}:{}", d.len, d.stride))
        .collect();
    format!("r{}+{}[{}]", v.root.0, v.offset, dims.join(", "))
}

fn dump_fn(
    out: &mut String,
    ir: &CrateIr,
    f: &FnIr,
    facts: &FnFacts,
    summary: Option<&FnSummary>,
    sources: &SourceMap,
) {
    let _ = writeln!(out, "fn {} @ {}", f.path, loc(sources, f.span));
    let a = &f.annotations;
    let mut ann = Vec::new();
    if a.kernel {
        ann.push("kernel".to_string());
    }
    for s in &a.assumptions {
        ann.push(format!("assume({} {} {})", s.lhs, s.cmp.as_str(), s.rhs));
    }
    if a.alloc {
        ann.push("alloc".into());
    }
    ann.extend(a.frees.iter().map(|i| format!("free(arg {i})")));
    ann.extend(a.view_of.iter().map(|i| format!("view(of arg {i})")));
    ann.extend(a.inplace.iter().map(|i| format!("inplace(arg {i})")));
    if !ann.is_empty() {
        let _ = writeln!(out, "  annotations: {}", ann.join(", "));
    }
    if f.truncated {
        let _ = writeln!(out, "  truncated: parts nested too deeply are unknown");
    }
    if !f.roots.is_empty() {
        let _ = writeln!(out, "  roots:");
    }
    for r in &f.roots {
        let origin = match &r.origin {
            RootOrigin::Alloc => format!("alloc @ {}", loc(sources, r.span)),
            RootOrigin::Param(i) => format!("param {i}"),
            RootOrigin::Static => "static".into(),
            RootOrigin::Global => "global".into(),
            RootOrigin::Unknown => "unknown".into(),
        };
        let shape = r.shape.as_ref().map_or_else(
            || "?".to_string(),
            |s| {
                format!(
                    "[{}]",
                    s.iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            },
        );
        let released = match &r.released_by {
            ReleasedBy::Drop => "drop".to_string(),
            ReleasedBy::Dealloc => "dealloc".into(),
            ReleasedBy::BoxFromRaw => "Box::from_raw".into(),
            ReleasedBy::Function(name) => name.clone(),
            ReleasedBy::NotOwned => "not owned".into(),
        };
        let grad = if r.requires_grad {
            ", requires grad"
        } else {
            ""
        };
        let uninit = if r.uninit { ", uninitialised" } else { "" };
        let _ = writeln!(
            out,
            "    r{} `{}`: {origin}, {}-byte elements, shape {shape}, released by {released}{grad}{uninit}",
            r.id.0, r.name, r.elem_bytes
        );
    }
    if let Some(s) = summary {
        let text = summary_text(s);
        if !text.is_empty() {
            let _ = writeln!(out, "  summary: {text}");
        }
    }
    for (b, body) in f.bodies.iter().enumerate() {
        let params: Vec<String> = body.params.iter().map(|&p| value_text(f, p)).collect();
        match &body.kind {
            BodyKind::Function => {
                let _ = writeln!(out, "  body{b} (fn {}):", params.join(", "));
            }
            BodyKind::Closure { parent, captures } => {
                let caps: Vec<String> = captures.iter().map(|&c| f.value_name(c)).collect();
                let _ = writeln!(
                    out,
                    "  body{b} (closure in body{} |{}| captures [{}]):",
                    parent.0,
                    params.join(", "),
                    caps.join(", ")
                );
            }
        }
        let preds = body.predecessors();
        for (k, block) in body.blocks.iter().enumerate() {
            // Dead blocks (nothing jumps there, nothing in them) are noise.
            if k != 0 && preds[k].is_empty() && block.stmts.is_empty() {
                continue;
            }
            let depth = if block.loop_depth > 0 {
                format!(" (loop depth {})", block.loop_depth)
            } else {
                String::new()
            };
            let _ = writeln!(out, "    bb{k}{depth}:");
            for stmt in &block.stmts {
                let guard = f
                    .guards
                    .iter()
                    .find(|(s, _)| *s == stmt.span)
                    .map(|(_, g)| {
                        let conds: Vec<String> = g
                            .iter()
                            .map(|a| format!("{} {} {}", a.lhs, a.cmp.as_str(), a.rhs))
                            .collect();
                        format!(" if {}", conds.join(" && "))
                    })
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "      {}{guard}  @ {}",
                    op_text(ir, f, &stmt.op),
                    loc(sources, stmt.span)
                );
            }
            let _ = writeln!(
                out,
                "      {}  @ {}",
                term_text(f, &block.term),
                loc(sources, block.term_span)
            );
        }
    }
    dump_facts(out, f, facts);
}

fn summary_text(s: &FnSummary) -> String {
    let set = |name: &str, v: &std::collections::BTreeSet<usize>| {
        (!v.is_empty()).then(|| format!("{name} {:?}", v.iter().collect::<Vec<_>>()))
    };
    let mut parts: Vec<String> = [
        set("reads", &s.reads),
        set("writes", &s.writes),
        set("inplace", &s.inplace),
        set("frees", &s.frees),
        set("escapes", &s.escapes),
    ]
    .into_iter()
    .flatten()
    .collect();
    for (t, _) in &s.table_writes {
        parts.push(format!("writes an entry of `{}` atomically", t.name));
    }
    match &s.returns {
        ReturnSummary::Nothing => {}
        ReturnSummary::ViewOf(i) => parts.push(format!("returns view of arg {i}")),
        ReturnSummary::Alloc(_) => parts.push("returns new memory".into()),
        ReturnSummary::Entry(t) => parts.push(format!("returns an entry of `{}`", t.name)),
    }
    if !s.returns_condition.is_empty() {
        let conds: Vec<String> = s
            .returns_condition
            .iter()
            .map(|a| format!("{} {} {}", a.lhs, a.cmp.as_str(), a.rhs))
            .collect();
        parts.push(format!("true when {}", conds.join(" && ")));
    }
    parts.join(", ")
}

fn dump_facts(out: &mut String, f: &FnIr, facts: &FnFacts) {
    let mut lines = Vec::new();
    for (k, v) in f.values.iter().enumerate() {
        let roots = facts.points_to.roots(ValueId(k as u32));
        if roots.len() > 1 && v.name.is_some() {
            let rs: Vec<String> = roots.iter().map(|r| format!("r{}", r.0)).collect();
            lines.push(format!(
                "    {} may point to {}",
                f.value_name(ValueId(k as u32)),
                rs.join(", ")
            ));
        }
    }
    let owned: Vec<usize> = f
        .roots
        .iter()
        .enumerate()
        .filter(|(_, r)| r.origin == RootOrigin::Alloc)
        .map(|(i, _)| i)
        .collect();
    if let (Some(body), Some(states)) = (f.bodies.first(), facts.alloc.first()) {
        for (k, block) in body.blocks.iter().enumerate() {
            let Terminator::Return { kind, .. } = block.term else {
                continue;
            };
            let end = states.at_end(
                f,
                crate::ir::BodyId(0),
                crate::ir::BlockId(k as u32),
                &facts.points_to,
            );
            if end.iter().all(|s| *s == AllocState::default()) {
                continue;
            }
            let parts: Vec<String> = owned
                .iter()
                .filter_map(|&r| end.get(r).map(|s| format!("r{r}: {}", s.describe())))
                .collect();
            if !parts.is_empty() {
                lines.push(format!(
                    "    at {} in bb{k}: {}",
                    return_kind(kind),
                    parts.join(", ")
                ));
            }
        }
    }
    if let (Some(live), Some(body)) = (facts.liveness.first(), f.bodies.first()) {
        let preds = body.predecessors();
        for (k, set) in live.live_in.iter().enumerate() {
            let names: Vec<String> = set
                .iter()
                .filter(|v| {
                    f.values
                        .get(v.0 as usize)
                        .is_some_and(|x| x.kind.is_memory() && x.name.is_some())
                })
                .map(|v| f.value_name(v))
                .collect();
            let reached = k == 0 || preds.get(k).is_some_and(|p| !p.is_empty());
            if !names.is_empty() && reached {
                lines.push(format!("    live into bb{k}: {}", names.join(", ")));
            }
        }
    }
    if !lines.is_empty() {
        let _ = writeln!(out, "  facts:");
        for l in lines {
            let _ = writeln!(out, "{l}");
        }
    }
}

fn return_kind(k: ReturnKind) -> &'static str {
    match k {
        ReturnKind::End => "return",
        ReturnKind::Early => "early return",
        ReturnKind::Try => "`?` return",
    }
}

/// `name%3: view r0+0[n:1]`.
fn value_text(f: &FnIr, v: ValueId) -> String {
    let Some(val) = f.values.get(v.0 as usize) else {
        return format!("%{}", v.0);
    };
    let kind = match &val.kind {
        ValueKind::Unknown => "unknown".to_string(),
        ValueKind::Scalar => match &val.int {
            Some(i) => format!("scalar = {i}"),
            None => "scalar".into(),
        },
        ValueKind::Root(r) => format!("owns r{}", r.0),
        ValueKind::View(r) => format!("view of r{}", r.0),
        ValueKind::RawPtr(Some(r)) => format!("ptr into r{}", r.0),
        ValueKind::RawPtr(None) => "ptr of unknown provenance".into(),
        ValueKind::Closure(b) => format!("closure body{}", b.0),
        ValueKind::ScopeHandle => "scope handle".into(),
    };
    match &val.view {
        Some(view) => format!("{}: {kind} {}", f.value_name(v), view_text(view)),
        None => format!("{}: {kind}", f.value_name(v)),
    }
}

fn region_text(r: &Option<View>) -> String {
    r.as_ref()
        .map_or_else(String::new, |v| format!(" at {}", view_text(v)))
}

fn slice_text(specs: &[SliceSpec]) -> String {
    let parts: Vec<String> = specs
        .iter()
        .map(|s| match s {
            SliceSpec::Range { start, end, step } => {
                let a = start.as_ref().map_or_else(String::new, |e| e.to_string());
                let b = end.as_ref().map_or_else(String::new, |e| e.to_string());
                if step.as_const() == Some(1) {
                    format!("{a}..{b}")
                } else {
                    format!("{a}..{b};{step}")
                }
            }
            SliceSpec::Index(i) => i.to_string(),
            SliceSpec::NewAxis => "NewAxis".into(),
        })
        .collect();
    format!("s![{}]", parts.join(", "))
}

fn view_op_text(how: &ViewOp) -> String {
    let list = |xs: &[crate::oracle::Expr]| {
        xs.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match how {
        ViewOp::Whole => "whole".into(),
        ViewOp::Slice(specs) => slice_text(specs),
        ViewOp::Transpose => "transpose".into(),
        ViewOp::Permute(order) => format!("permute {order:?}"),
        ViewOp::Broadcast(shape) => format!("broadcast [{}]", list(shape)),
        ViewOp::Reshape(shape) => format!("reshape [{}]", list(shape)),
        ViewOp::Diag => "diag".into(),
        ViewOp::Split { axis, at, second } => {
            format!(
                "split axis {axis} at {at} ({})",
                if *second { "second" } else { "first" }
            )
        }
        ViewOp::Iter {
            axis,
            chunk: None,
            index,
        } => format!("item {index} of axis {axis}"),
        ViewOp::Iter {
            axis,
            chunk: Some(c),
            index,
        } => format!("chunk {index} of size {c} along axis {axis}"),
        ViewOp::Offset(d) => format!("offset {d}"),
        ViewOp::FromRaw {
            shape,
            strides: None,
        } => format!("from raw [{}]", list(shape)),
        ViewOp::FromRaw {
            shape,
            strides: Some(s),
        } => format!("from raw [{}] strides [{}]", list(shape), list(s)),
        ViewOp::Opaque(name) => format!("opaque `{name}`"),
    }
}

fn task_text(t: &Task) -> String {
    match &t.iteration {
        Some(it) => format!("body{} for {} in {}..{}", t.body.0, it.symbol, it.lo, it.hi),
        None => format!("body{}", t.body.0),
    }
}

fn op_text(ir: &CrateIr, f: &FnIr, op: &Op) -> String {
    let n = |v: &ValueId| f.value_name(*v);
    match op {
        Op::Alloc { dst, root, size } => {
            let size = size
                .as_ref()
                .map_or_else(|| "?".to_string(), |s| s.to_string());
            format!("{} = alloc r{} size {size}", value_text(f, *dst), root.0)
        }
        Op::Release { value, how } => {
            let how = match how {
                ReleaseKind::Drop => "drop".to_string(),
                ReleaseKind::Dealloc => "dealloc".into(),
                ReleaseKind::FromRaw(owner) => format!("{owner}::from_raw"),
                ReleaseKind::Function(name) => format!("`{name}`"),
                ReleaseKind::ScopeEnd => "scope end".into(),
                ReleaseKind::ClosureEnd => "the end of the closure it was moved into".into(),
            };
            format!("release {} by {how}", n(value))
        }
        Op::View { dst, src, how } => format!(
            "{} = view {} {}",
            value_text(f, *dst),
            n(src),
            view_op_text(how)
        ),
        Op::Read { value, region } => format!("read {}{}", n(value), region_text(region)),
        Op::Write { value, region } => format!("write {}{}", n(value), region_text(region)),
        Op::DropStored { value, region } => {
            format!("drop what is stored in {}{}", n(value), region_text(region))
        }
        Op::Claim { value, region } => {
            format!("claim &mut {}{}", n(value), region_text(region))
        }
        Op::Duplicate {
            dst,
            src,
            region,
            how,
        } => match how {
            DuplicateKind::Read => format!(
                "{} = bitwise copy of what is stored in {}{}",
                value_text(f, *dst),
                n(src),
                region_text(region)
            ),
            DuplicateKind::Copied => format!(
                "bitwise copy into {} of what is stored in {}{}",
                n(dst),
                n(src),
                region_text(region)
            ),
            DuplicateKind::Dropped => {
                format!(
                    "drop in place what is stored in {}{}",
                    n(src),
                    region_text(region)
                )
            }
            DuplicateKind::Uninit => format!(
                "store a placeholder never initialised in {}{}",
                n(src),
                region_text(region)
            ),
        },
        Op::MayUnwind { drops, cause } => {
            let d: Vec<String> = drops.iter().map(n).collect();
            format!("may unwind ({cause}), dropping [{}]", d.join(", "))
        }
        Op::SetLen { value, grows } => format!(
            "set the length of {}{}",
            n(value),
            if *grows { ", longer" } else { "" }
        ),
        Op::Store { value, region } => {
            format!("store an owner through {}{}", n(value), region_text(region))
        }
        Op::InPlace { dst, srcs, method } => {
            let s: Vec<String> = srcs.iter().map(n).collect();
            format!("inplace `{method}` {} from [{}]", n(dst), s.join(", "))
        }
        Op::Escape { value, how } => {
            let how = match how {
                EscapeKind::Returned => "returned".to_string(),
                EscapeKind::Stored => "stored".into(),
                EscapeKind::PassedOn(name) => format!("passed to `{name}`"),
                EscapeKind::Leaked { api, .. } => format!("leaked by `{api}`"),
            };
            format!("escape {} {how}", n(value))
        }
        Op::Parallel(region) => {
            let tasks: Vec<String> = region.tasks.iter().map(task_text).collect();
            format!("parallel {:?} [{}]", region.kind, tasks.join("; "))
                .replace("parallel ParIter", "parallel par-iter")
        }
        Op::Spawn { scope, task } => format!("spawn {} on {}", task_text(task), n(scope)),
        Op::Call { dst, callee, args } => {
            let callee = match callee {
                Callee::Local(id) => match ir.function(*id) {
                    Some(callee) => format!("fn {}", callee.path),
                    None => format!("fn#{}", id.0),
                },
                Callee::Closure(b) => format!("closure body{}", b.0),
                Callee::Unknown(name) => format!("`{name}`"),
            };
            let a: Vec<String> = args.iter().map(n).collect();
            match dst {
                Some(d) => format!("{} = call {callee}({})", n(d), a.join(", ")),
                None => format!("call {callee}({})", a.join(", ")),
            }
        }
        Op::Assign { dst, src } => format!("{} = {}", n(dst), n(src)),
        Op::RequiresGrad { value, on } => format!("requires_grad {} = {on}", n(value)),
        Op::Use { value } => format!("use {}", n(value)),
        Op::AssumeNull { value } => format!("assume {} is null", n(value)),
        Op::Load { dst, root } => format!("{} = load r{}", n(dst), root.0),
        Op::Atomic { value, write, .. } => {
            format!(
                "atomic {} {}",
                if *write { "write" } else { "read" },
                n(value)
            )
        }
    }
}

fn term_text(f: &FnIr, t: &Terminator) -> String {
    match t {
        Terminator::Goto(b) => format!("goto bb{}", b.0),
        Terminator::Branch { cond, targets } => {
            let ts: Vec<String> = targets.iter().map(|b| format!("bb{}", b.0)).collect();
            match cond {
                Some(c) => format!("branch {} -> [{}]", f.value_name(*c), ts.join(", ")),
                None => format!("branch [{}]", ts.join(", ")),
            }
        }
        Terminator::Return { value, kind } => match value {
            Some(v) => format!("{} {}", return_kind(*kind), f.value_name(*v)),
            None => return_kind(*kind).to_string(),
        },
        Terminator::Unreachable => "unreachable".into(),
    }
}
