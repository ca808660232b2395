//! The moment of a crash, for `crashed`: a handler of the signals a crashing C scanner
//! raises (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) that, when the crashing thread is
//! parsing a recorded content, moves that record to the crash records, then lets the process
//! die of the same signal. Only the thread that crashed marks its content: files other
//! threads were parsing, and any run killed from outside (SIGKILL, SIGTERM), mark nothing.
//! A signal while no record is current goes to the handler that was there before (the
//! standard library's stack-overflow report), unchanged.

use std::cell::Cell;
use std::ffi::CString;
use std::sync::OnceLock;

/// The signals a crashing grammar raises.
const SIGNALS: [libc::c_int; 5] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGILL,
    libc::SIGFPE,
    libc::SIGABRT,
];

/// The actions installed before ours, in the order of `SIGNALS`.
static PREVIOUS: OnceLock<[libc::sigaction; 5]> = OnceLock::new();

thread_local! {
    /// The record of the content this thread is parsing (null: none). Const-initialised
    /// with no destructor, so the handler may read it.
    static CURRENT: Cell<*const Paths> = const { Cell::new(std::ptr::null()) };
}

/// Where a record is, and where it goes if its parse crashes: made before the parse, since
/// nothing can be allocated in a signal handler.
pub(super) struct Paths {
    /// `parsing/<hash>`.
    pub(super) from: CString,
    /// `crashed/<hash>`.
    pub(super) to: CString,
}

/// Install the handler (once per process).
pub(super) fn install() {
    PREVIOUS.get_or_init(|| {
        // SAFETY: a zeroed sigaction is a valid value (no handler, empty mask), and each
        // call gets valid pointers to live values; `on_signal` only calls functions that
        // are async-signal-safe (rename, sigaction, raise) and reads a thread-local.
        unsafe {
            let mut previous: [libc::sigaction; 5] = std::mem::zeroed();
            let mut ours: libc::sigaction = std::mem::zeroed();
            ours.sa_sigaction = on_signal as *const () as libc::sighandler_t;
            ours.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut ours.sa_mask);
            for (sig, old) in SIGNALS.iter().zip(previous.iter_mut()) {
                libc::sigaction(*sig, &ours, old);
            }
            previous
        }
    });
}

/// Make `paths` this thread's current record, until `clear`. `paths` must stay alive and
/// unmoved until then (the caller boxes it).
pub(super) fn set(paths: &Paths) {
    CURRENT.with(|c| c.set(paths));
}

/// This thread parses no recorded content any more.
pub(super) fn clear() {
    CURRENT.with(|c| c.set(std::ptr::null()));
}

extern "C" fn on_signal(sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    let current = CURRENT.try_with(|c| c.get()).unwrap_or(std::ptr::null());
    let index = SIGNALS.iter().position(|s| *s == sig);
    // SAFETY: `current` is null or points to the `Paths` a live guard of this thread holds
    // (set before the parse, cleared before it is freed); the C strings are NUL-terminated.
    // sigaction, signal and raise are async-signal-safe.
    unsafe {
        if !current.is_null() {
            let paths = &*current;
            libc::rename(paths.from.as_ptr(), paths.to.as_ptr());
            libc::signal(sig, libc::SIG_DFL);
        } else if let (Some(previous), Some(i)) = (PREVIOUS.get(), index) {
            libc::sigaction(sig, &previous[i], std::ptr::null_mut());
        } else {
            libc::signal(sig, libc::SIG_DFL);
        }
        // A fault comes again from the faulting instruction when this returns, under the
        // action just set; a signal sent (abort, raise, kill: si_code <= 0) is sent again,
        // delivered under that action once this handler returns.
        if info.is_null() || (*info).si_code <= 0 {
            libc::raise(sig);
        }
    }
}
