#![forbid(unsafe_code)]

use std::process::ExitCode;

/// Deeply nested input (10,000 levels of parentheses) must not overflow the stack of
/// the parser and the lowering: the whole run happens on a thread with room for it.
const STACK_BYTES: usize = 512 * 1024 * 1024;

/// Parsing makes and frees millions of small syntax-tree blocks on every worker thread;
/// mimalloc's per-thread heaps do that about a sixth faster than the system allocator,
/// for roughly twice the peak memory (`scripts/bench.py` reports both).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    quiet_caught_panics();
    let args: Vec<_> = std::env::args_os().collect();
    let worker = std::thread::Builder::new()
        .name("tensor-lint".into())
        .stack_size(STACK_BYTES)
        .spawn(move || cargo_tensor_lint::cli::run(args));
    let outcome = match worker {
        Ok(handle) => handle.join(),
        Err(err) => {
            eprintln!("error: cannot start the analysis thread: {err}");
            return ExitCode::from(2);
        }
    };
    match outcome {
        Ok(Ok(code)) => code,
        Ok(Err(err)) => {
            eprintln!("{:?}", miette::Report::new(err));
            ExitCode::from(2)
        }
        Err(_) => {
            eprintln!("error: tensor-lint hit an internal error; please report it with the input that caused it");
            ExitCode::from(101)
        }
    }
}

/// A panic while a unit is checked is caught and reported as a diagnostic naming the
/// file; the default message with its backtrace is printed beside it only when
/// `RUST_BACKTRACE` asks for one.
fn quiet_caught_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let backtrace = std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0");
        if backtrace || !cargo_tensor_lint::driver::panic_is_reported() {
            default(info);
        }
    }));
}
