// This binary is also rustc's wrapper and links the compiler (`tensor-lint-driver`);
// linking the compiler's `rustc_driver` library needs the feature in the binary too.
#![feature(rustc_private)]
#![forbid(unsafe_code)]

extern crate rustc_driver;
// The compiler's own allocator, which rustc links in place of the C library's `malloc`:
// the driver allocates as the compiler does, and markedly faster than with the system
// allocator.
extern crate tikv_jemalloc_sys as jemalloc_sys;

use std::ffi::c_void;
use std::process::ExitCode;

// Referenced so that the linker keeps jemalloc's definitions of the C allocation
// functions, which then serve the whole process.
#[used]
static MALLOC: unsafe extern "C" fn(usize) -> *mut c_void = jemalloc_sys::malloc;
#[used]
static CALLOC: unsafe extern "C" fn(usize, usize) -> *mut c_void = jemalloc_sys::calloc;
#[used]
static REALLOC: unsafe extern "C" fn(*mut c_void, usize) -> *mut c_void = jemalloc_sys::realloc;
#[used]
static POSIX_MEMALIGN: unsafe extern "C" fn(*mut *mut c_void, usize, usize) -> i32 =
    jemalloc_sys::posix_memalign;
#[used]
static ALIGNED_ALLOC: unsafe extern "C" fn(usize, usize) -> *mut c_void =
    jemalloc_sys::aligned_alloc;
#[used]
static FREE: unsafe extern "C" fn(*mut c_void) = jemalloc_sys::free;

/// Deeply nested input (10,000 levels of parentheses) must not overflow the stack of
/// the parser and the lowering: the whole run happens on a thread with room for it.
const STACK_BYTES: usize = 512 * 1024 * 1024;

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().collect();
    // Started by cargo as rustc's wrapper: this process is the compiler, with
    // tensor-lint's driver.
    if cargo_tensor_lint::compiler::invoked_as_wrapper(&args) {
        let args = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        return tensor_lint_driver::main(args);
    }
    quiet_caught_panics();
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
