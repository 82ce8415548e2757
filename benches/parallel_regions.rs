//! Cost of the lints, the `alias_race` and `false_sharing` passes above all, over a
//! generated crate with many parallel regions, to show that it grows linearly with the
//! number of regions.
//!
//! The crate cycles through the region shapes the lints look at: `rayon::join` over raw
//! halves (exact and one element too long), counters bumped by `par_iter_mut`, scoped
//! threads writing tiles through a `usize` address, small `par_chunks_mut` chunks
//! rewritten in a loop, and banded raw-view kernels with a shorter last band.
//!
//! The crate is written as a package in the temporary folder and checked by
//! `cargo-tensor-lint --timings`; what is measured is the `lints + oracle` time it reports
//! (every lint and the oracle's queries), not the compilation around it. The package and
//! its target folder are kept between runs, so its dependencies are built once.
//!
//! Run with `cargo bench --bench parallel_regions`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};

/// Region counts measured; the report compares time per region across them. A check of
/// 200 regions takes about 13 s, most of it in the solver behind the halves and the bands.
const SIZES: [usize; 4] = [25, 50, 100, 200];

/// The source of function `k`: one parallel region of shape `k % 5`.
fn region_fn(k: usize, out: &mut String) {
    let body = match k % 5 {
        0 => format!(
            "pub fn halves_{k}(v: &mut Vec<f32>, n: usize) {{
                let p = v.as_mut_ptr();
                let a = unsafe {{ std::slice::from_raw_parts_mut(p, n / 2 + {extra}) }};
                let b = unsafe {{ std::slice::from_raw_parts_mut(p.add(n / 2), n - n / 2) }};
                rayon::join(|| a.fill(0.0), || b.fill(1.0));
            }}",
            extra = k % 2
        ),
        1 => format!(
            "pub fn counters_{k}(pts: &[f32]) -> u64 {{
                let mut hits = vec![0u64; rayon::current_num_threads()];
                hits.par_iter_mut().for_each(|h| {{ for p in pts {{ if *p > 0.0 {{ *h += 1; }} }} }});
                hits.iter().sum()
            }}"
        ),
        2 => format!(
            "pub fn tiles_{k}(pixels: &mut Vec<u32>, tile: usize) {{
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
            "pub fn steps_{k}(steps: usize) -> [f32; 32] {{
                let mut swarm = [0.0f32; 32];
                for _ in 0..steps {{
                    swarm.par_chunks_mut(4).for_each(|a| a[0] += 0.01);
                }}
                swarm
            }}"
        ),
        _ => format!(
            "/// # Safety
            /// `out` holds `rows * cols` elements.
            #[tensor_lint::kernel(assume(band >= 1))]
            pub unsafe fn bands_{k}(rows: usize, cols: usize, band: usize, out: *mut f32) {{
                let out = SendPtr(out);
                (0..rows.div_ceil(band)).into_par_iter().for_each(|b| {{
                    let out = &out;
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
        "use ndarray::ArrayViewMut2;
use rayon::prelude::*;
struct SendPtr(*mut f32);
unsafe impl Send for SendPtr {}
unsafe impl Sync for SendPtr {}
",
    );
    for k in 0..regions {
        region_fn(k, &mut text);
    }
    let _ = writeln!(text, "// {regions} regions");
    text
}

/// The package the crate is written into, in the temporary folder. It is kept between runs
/// with its target folder, so that its dependencies (`rayon`, `ndarray` and the annotations'
/// crate) are built once.
fn package() -> PathBuf {
    let dir = std::env::temp_dir().join("tensor-lint-bench-parallel-regions");
    let macros = Path::new(env!("CARGO_MANIFEST_DIR")).join("macros");
    let manifest = format!(
        "[package]
name = \"parallel-regions\"
version = \"0.1.0\"
edition = \"2021\"
publish = false

[workspace]

[dependencies]
ndarray = \"0.17\"
rayon = \"1\"
tensor-lint = {{ path = {:?} }}
",
        macros.display().to_string()
    );
    std::fs::create_dir_all(dir.join("src")).expect("create the package folder");
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("write Cargo.toml");
    dir
}

/// Writes `text`, a crate of `regions` regions, as the package's `src/lib.rs` (newly
/// modified, so that cargo checks it again rather than replaying the last check), checks
/// the package and returns the time its lints took: the `lints + oracle` line of
/// `--timings`, without the compilation around them.
fn lints_time(dir: &Path, text: &str, regions: usize) -> Duration {
    std::fs::write(dir.join("src").join("lib.rs"), text).expect("write src/lib.rs");
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-tensor-lint"))
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .args(["--timings", "--message-format", "json"])
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("CLICOLOR_FORCE")
        .env("NO_COLOR", "1")
        .output()
        .expect("run cargo-tensor-lint");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lints = stderr
        .lines()
        .find_map(|line| line.trim_start().strip_prefix("lints + oracle"))
        .and_then(|rest| rest.trim().strip_suffix(" ms"))
        .and_then(|ms| ms.trim().parse::<f64>().ok());
    let Some(ms) = lints else {
        panic!("no `lints + oracle` time ({}):\n{stderr}", output.status);
    };
    // Half the regions are findings: the halves one element too long, the packed
    // counters and the swarm of small chunks.
    let found = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-message")
        .filter(|message| {
            let lint = &message["message"]["code"]["code"];
            lint == "tensor_lint::alias_race" || lint == "tensor_lint::false_sharing"
        })
        .count();
    assert!(
        found >= regions / 2,
        "{found} findings in {regions} regions:\n{stderr}"
    );
    Duration::from_secs_f64(ms / 1000.0)
}

fn bench(c: &mut Criterion) {
    let dir = package();
    let mut group = c.benchmark_group("parallel_regions");
    // A check takes seconds (the oracle's solver dominates): every sample is one check,
    // whatever the measurement time.
    group.sampling_mode(SamplingMode::Flat);
    for regions in SIZES {
        let text = generated_crate(regions);
        group.throughput(Throughput::Elements(regions as u64));
        group.bench_with_input(BenchmarkId::new("lints", regions), &text, |b, text| {
            b.iter_custom(|iters| (0..iters).map(|_| lints_time(&dir, text, regions)).sum())
        });
    }
    group.finish();
}

criterion_group! {
    name = parallel_regions;
    config = Criterion::default()
        .sample_size(10)
        .measurement_time(Duration::from_secs(1))
        .warm_up_time(Duration::from_millis(1));
    targets = bench
}
criterion_main!(parallel_regions);
