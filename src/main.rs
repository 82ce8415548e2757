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
    // The command line runs on a thread of its own, so that a panic (a bug of ours)
    // ends in a clear message and exit status 101 rather than an abort.
    let worker = std::thread::Builder::new()
        .name("tensor-lint".into())
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
