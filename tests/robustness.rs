//! Input that changes under the run: the linter reads each file once, so whatever it
//! read is checked as a whole, and it never crashes.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use common::{bin, package, scratch};

#[test]
fn a_file_rewritten_while_the_run_reads_it_never_crashes_it() {
    let dir = scratch(
        "robust",
        &[
            ("Cargo.toml", &package("churn")),
            ("src/lib.rs", "mod churn;\n"),
            ("src/churn.rs", ""),
        ],
    );
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let stop = Arc::clone(&stop);
        let path = dir.join("src/churn.rs");
        std::thread::spawn(move || {
            let versions = [
                "pub fn scale(x: &mut [f32]) { for v in x { *v *= 2.0; } }\n".repeat(50),
                "pub fn broken( {\n".to_string(),
                String::new(),
                "// ünïcödé\n".repeat(200),
            ];
            let mut i = 0;
            while !stop.load(Ordering::Relaxed) {
                // Truncate-and-write, not rename: a reader can see a half-written file.
                let _ = std::fs::write(&path, &versions[i % versions.len()]);
                i += 1;
            }
        })
    };
    for _ in 0..15 {
        let output = bin()
            .current_dir(&dir)
            .arg("--message-format=short")
            .output()
            .unwrap();
        let code = output.status.code();
        assert!(
            matches!(code, Some(0) | Some(1)),
            "status {code:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
}
