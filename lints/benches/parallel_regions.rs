//! Cost of the `alias_race` and `false_sharing` passes over a generated crate with many
//! parallel regions, to show that it grows linearly with the number of regions.
//!
//! The crate cycles through the region shapes the lints look at: `rayon::join` over raw
//! halves (exact and one element too long), counters bumped by `par_iter_mut`, scoped
//! threads writing tiles through a `usize` address, small `par_chunks_mut` chunks
//! rewritten in a loop, and banded raw-view kernels with a shorter last band.
//!
//! Run with `cargo bench -p tensor-lint-lints --bench parallel_regions`.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use tensor_lint_analyzer::program::{analyze_crate, AnalysisOptions, CrateIr};
use tensor_lint_analyzer::source::SourceMap;
use tensor_lint_analyzer::syntax::{parse_file, CrateSources, ParsedFile};
use tensor_lint_lints::context::{LintContext, LintFinding};
use tensor_lint_lints::{alias_race, false_sharing};

/// Region counts measured; the report compares time per region across them.
const SIZES: [usize; 4] = [50, 100, 200, 400];

/// The source of function `k`: one parallel region of shape `k % 5`.
fn region_fn(k: usize, out: &mut String) {
    let body = match k % 5 {
        0 => format!(
            "fn halves_{k}(v: &mut Vec<f32>, n: usize) {{
                let p = v.as_mut_ptr();
                let a = unsafe {{ std::slice::from_raw_parts_mut(p, n / 2 + {extra}) }};
                let b = unsafe {{ std::slice::from_raw_parts_mut(p.add(n / 2), n - n / 2) }};
                rayon::join(|| a.fill(0.0), || b.fill(1.0));
            }}",
            extra = k % 2
        ),
        1 => format!(
            "fn counters_{k}(pts: &[f32]) -> u64 {{
                let mut hits = vec![0u64; rayon::current_num_threads()];
                hits.par_iter_mut().for_each(|h| {{ for p in pts {{ if *p > 0.0 {{ *h += 1; }} }} }});
                hits.iter().sum()
            }}"
        ),
        2 => format!(
            "fn tiles_{k}(pixels: &mut Vec<u32>, tile: usize) {{
                let addr = pixels.as_mut_ptr() as usize;
                std::thread::scope(|s| {{
                    for t in 0..4 {{
                        s.spawn(move || {{
                            let p = addr as *mut u32;
                            for j in 0..tile {{ unsafe {{ *p.add(t * tile + j) = t as u32 }}; }}
                        }});
                    }}
                }});
            }}"
        ),
        3 => format!(
            "fn steps_{k}(steps: usize) -> [f32; 32] {{
                let mut swarm = [0.0f32; 32];
                for _ in 0..steps {{
                    swarm.par_chunks_mut(4).for_each(|a| a[0] += 0.01);
                }}
                swarm
            }}"
        ),
        _ => format!(
            "#[tensor_lint::kernel(assume(band >= 1))]
            unsafe fn bands_{k}(rows: usize, cols: usize, band: usize, out: *mut f32) {{
                let out = SendPtr(out);
                (0..rows.div_ceil(band)).into_par_iter().for_each(|b| {{
                    let first = b * band;
                    let height = band.min(rows - first);
                    let mut tile = unsafe {{
                        ArrayViewMut2::from_shape_ptr((height, cols), out.0.add(first * cols))
                    }};
                    tile.fill(0.0);
                }});
            }}"
        ),
    };
    out.push_str(&body);
    out.push('\n');
}

/// A crate of `regions` functions, one parallel region each.
fn generated_crate(regions: usize) -> String {
    let mut text = String::from(
        "use ndarray::ArrayViewMut2;\nuse rayon::prelude::*;\nstruct SendPtr(*mut f32);\n",
    );
    for k in 0..regions {
        region_fn(k, &mut text);
    }
    let _ = writeln!(text, "// {regions} regions");
    text
}

fn analyzed(text: &str) -> (CrateIr, SourceMap) {
    let mut sources = SourceMap::new();
    let file = sources.add("gen.rs".into(), "gen.rs".into(), text.into());
    let ast = match parse_file(file, text) {
        Ok(ast) => ast,
        Err(e) => panic!("the generated crate does not parse: {e:?}"),
    };
    let krate = CrateSources {
        name: "gen".into(),
        files: vec![ParsedFile {
            file,
            module_path: Vec::new(),
            ast,
        }],
    };
    let ir = analyze_crate(&krate, &sources, &AnalysisOptions::default());
    (ir, sources)
}

fn run_passes(cx: &LintContext<'_>) -> Vec<LintFinding> {
    let mut out = Vec::new();
    for pass in [alias_race::PASS, false_sharing::PASS]
        .into_iter()
        .flatten()
    {
        pass(cx, &mut out);
    }
    out
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("parallel_regions");
    for regions in SIZES {
        let (ir, sources) = analyzed(&generated_crate(regions));
        let cx = LintContext {
            ir: &ir,
            sources: &sources,
            cache_line_bytes: 64,
        };
        // Half the regions are findings: the halves one element too long, the packed
        // counters and the swarm of small chunks.
        let found = run_passes(&cx).len();
        assert!(
            found >= regions / 2,
            "{found} findings in {regions} regions"
        );
        group.throughput(Throughput::Elements(regions as u64));
        group.bench_with_input(BenchmarkId::new("lints", regions), &cx, |b, cx| {
            b.iter(|| black_box(run_passes(cx)))
        });
    }
    group.finish();
}

criterion_group! {
    name = parallel_regions;
    config = Criterion::default()
        .sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    targets = bench
}
criterion_main!(parallel_regions);
