//! Throughput of the alias oracle over a fixed, realistic mix of queries (row and column
//! slices of large matrices, strided and transposed views, chunked parallel loops,
//! byte views, a few symbolic sizes), and the share of answers each path decided.
//!
//! Run with `cargo bench -p tensor-lint-analyzer --bench oracle`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use tensor_lint_analyzer::oracle::{
    internal_overlap, iterations_overlap, overlap, path_stats, reset_path_stats, Answer,
    Assumptions, Cmp, DecidedBy, Dim, Expr, RootId, View,
};

enum Query {
    Overlap(View, View, Assumptions),
    Internal(View, Assumptions),
    Iterations(View, &'static str, (Expr, Expr), Assumptions),
}

impl Query {
    fn run(&self) -> Answer {
        match self {
            Query::Overlap(a, b, asm) => overlap(a, b, asm),
            Query::Internal(v, asm) => internal_overlap(v, asm),
            Query::Iterations(v, it, range, asm) => iterations_overlap(v, it, range.clone(), asm),
        }
    }
}

/// A deterministic stream of small numbers for picking rows and offsets.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> i64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n) as i64
    }
}

fn mix() -> Vec<Query> {
    let big = 1_000_000i64;
    let m = View::contiguous(RootId(0), 4, vec![Expr::int(1024), Expr::int(1024)]);
    let huge = View::contiguous(RootId(1), 8, vec![Expr::int(big), Expr::int(big)]);
    let none = Assumptions::new();
    let mut rng = Lcg(42);
    let mut out = Vec::new();
    for _ in 0..20 {
        // Row against row: mostly disjoint (interval), sometimes the same row.
        let (r1, r2) = (rng.below(1024), rng.below(4));
        let a = m.index(0, Expr::int(r1)).unwrap_or_else(|| m.clone());
        let b = m
            .index(0, Expr::int((r1 + r2) % 1024))
            .unwrap_or_else(|| m.clone());
        out.push(Query::Overlap(a, b, none.clone()));
        // Row against column: always one shared element (Diophantine).
        let c = m
            .index(1, Expr::int(rng.below(1024)))
            .unwrap_or_else(|| m.clone());
        let r = m
            .index(0, Expr::int(rng.below(1024)))
            .unwrap_or_else(|| m.clone());
        out.push(Query::Overlap(r, c, none.clone()));
        // Even against odd columns of a huge matrix (gcd).
        let even = huge.slice(1, Expr::int(0), Expr::int(big), 2);
        let odd = huge.slice(1, Expr::int(1), Expr::int(big), 2);
        if let (Some(e), Some(o)) = (even, odd) {
            out.push(Query::Overlap(e.clone(), o, none.clone()));
            out.push(Query::Internal(e, none.clone()));
        }
        // split_at halves (interval) and a matrix against its transpose.
        let mid = 1 + rng.below(1023);
        if let Some((top, bottom)) = m.split_at(0, Expr::int(mid)) {
            out.push(Query::Overlap(top, bottom, none.clone()));
        }
        out.push(Query::Overlap(m.clone(), m.transpose(), none.clone()));
        // Blocks of a huge matrix with a skewed stride.
        let skew = View {
            root: RootId(1),
            elem_bytes: 8,
            offset: Expr::int(rng.below(1000)),
            dims: vec![Dim::new(big, big + 1), Dim::new(big, 3)],
        };
        out.push(Query::Overlap(huge.clone(), skew, none.clone()));
        // Different roots, empty slices, a u8 view of f32 data.
        out.push(Query::Overlap(m.clone(), huge.clone(), none.clone()));
        let empty = m
            .slice(0, Expr::int(5), Expr::int(5), 1)
            .unwrap_or_else(|| m.clone());
        out.push(Query::Overlap(empty, m.clone(), none.clone()));
        let bytes = View::strided(RootId(0), 1, 4 * rng.below(4096), &[16], &[1]);
        out.push(Query::Overlap(bytes, m.clone(), none.clone()));
        // Broadcast and contiguous views written in place.
        let row = View::contiguous(RootId(0), 4, vec![Expr::int(1), Expr::int(1024)]);
        if let Some(b) = row.broadcast(vec![Expr::int(64), Expr::int(1024)]) {
            out.push(Query::Internal(b, none.clone()));
        }
        out.push(Query::Internal(m.transpose(), none.clone()));
        // Parallel rows of a concrete matrix.
        let rowi = m.index(0, Expr::sym("i")).unwrap_or_else(|| m.clone());
        out.push(Query::Iterations(
            rowi,
            "i",
            (Expr::int(0), Expr::int(1024)),
            none.clone(),
        ));
    }
    // Symbolic sizes: halves, row partitions, a gcd, and two that need the solver.
    let n = Expr::sym("n");
    let h = n.div_floor(2);
    let mut asm = Assumptions::new();
    asm.push(n.clone(), Cmp::Ge, Expr::int(2));
    let half = |off: Expr, len: Expr| View {
        root: RootId(2),
        elem_bytes: 4,
        offset: off,
        dims: vec![Dim::new(len, 1)],
    };
    for _ in 0..4 {
        out.push(Query::Overlap(
            half(Expr::int(0), h.clone()),
            half(h.clone(), &n - &h),
            asm.clone(),
        ));
        let cols = Expr::sym("cols");
        let rows = View::contiguous(RootId(2), 4, vec![Expr::sym("rows"), cols.clone()]);
        let row = rows
            .index(0, Expr::sym("r"))
            .unwrap_or_else(|| rows.clone());
        out.push(Query::Iterations(
            row,
            "r",
            (Expr::int(0), Expr::sym("rows")),
            asm.clone(),
        ));
        out.push(Query::Overlap(
            half(&n * 2, n.clone()),
            half(&n * 2 + 1, n.clone()).offset_by(Expr::int(0)),
            asm.clone(),
        ));
        out.push(Query::Internal(rows, asm.clone()));
    }
    let mut rows_asm = asm.clone();
    rows_asm.push(Expr::sym("cols"), Cmp::Ge, Expr::int(2));
    out.push(Query::Overlap(
        half(Expr::int(0), &h + 1),
        half(h.clone(), &n - &h),
        asm.clone(),
    ));
    let pitch = half(
        &Expr::sym("r") * &(&Expr::sym("cols") - 1),
        Expr::sym("cols"),
    );
    out.push(Query::Iterations(
        pitch,
        "r",
        (Expr::int(0), Expr::sym("rows")),
        rows_asm,
    ));
    out
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort_unstable();
    xs.get(xs.len() / 2).copied().unwrap_or_default()
}

fn report(queries: &[Query]) {
    reset_path_stats();
    let mut fast_times = Vec::new();
    let mut solver_times = Vec::new();
    for q in queries {
        let start = Instant::now();
        let reps = 20u32;
        let mut by = DecidedBy::Z3;
        for _ in 0..reps {
            by = black_box(q.run()).decided_by;
        }
        let per = start.elapsed() / reps;
        if by.is_fast_path() {
            fast_times.push(per);
        } else {
            solver_times.push(per);
        }
    }
    let stats = path_stats();
    let total: u64 = stats.iter().map(|(_, n)| n).sum();
    println!("oracle mix: {} queries", queries.len());
    for (by, n) in &stats {
        if *n > 0 {
            println!(
                "  {:<12} {:>5.1}%",
                by.as_str(),
                100.0 * *n as f64 / total.max(1) as f64
            );
        }
    }
    println!(
        "  median fast-path query: {:?}; median solver query: {:?}",
        median(fast_times),
        median(solver_times)
    );
}

fn bench(c: &mut Criterion) {
    let queries = mix();
    report(&queries);
    let fast: Vec<&Query> = queries
        .iter()
        .filter(|q| q.run().decided_by.is_fast_path())
        .collect();
    c.bench_function("oracle mix (all queries)", |b| {
        b.iter(|| {
            for q in &queries {
                black_box(q.run());
            }
        })
    });
    c.bench_function("oracle mix (fast paths only)", |b| {
        b.iter(|| {
            for q in &fast {
                black_box(q.run());
            }
        })
    });
}

criterion_group! {
    name = oracle;
    config = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = bench
}
criterion_main!(oracle);
