//! Where the threads of one launch run: each on a core of its own.
//!
//! A launch of many blocks runs worker 0 on the stream's thread and the others on the device's
//! pool ([`super::pool`]). Left to the host's scheduler, a pool thread woken by the stream's
//! thread is often queued on that thread's own core: on a virtual machine an idle virtual CPU
//! counts as preempted, so the scheduler does not choose it, and the two workers shared one
//! core for tens of milliseconds while the other idled (a block reduction of 32,768 blocks took
//! 32 ms on two threads, as on one, in about half of the runs; 17 ms in the others). So each
//! pool thread is bound, for its life, to one core of those the process may use (thread `i` to
//! the `i`-th after the first, wrapping), and the stream's thread is bound to the first while it
//! runs a launch's worker 0, its earlier binding restored after. A launch never binds more
//! threads than it runs; one worker binds nothing.
//!
//! `CHEVRON_CPU_PIN=0` leaves placement to the host's scheduler. Only Linux binds threads.

use std::sync::OnceLock;

/// Whether launches bind their threads to cores (`CHEVRON_CPU_PIN`, default on), read once.
fn enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| match std::env::var("CHEVRON_CPU_PIN") {
        Err(_) => true,
        Ok(text) => match text.trim() {
            "" | "1" | "true" | "yes" | "on" => true,
            "0" | "false" | "no" | "off" => false,
            _ => {
                eprintln!("chevron: CHEVRON_CPU_PIN={text:?}: expected 0 or 1; threads stay bound");
                true
            }
        },
    })
}

#[cfg(target_os = "linux")]
mod os {
    /// The cores the process may run on, in order, read once (at the first launch that binds).
    pub(super) fn allowed() -> &'static [usize] {
        static ALLOWED: std::sync::OnceLock<Vec<usize>> = std::sync::OnceLock::new();
        ALLOWED.get_or_init(|| {
            current()
                .map(|set| {
                    (0..libc::CPU_SETSIZE as usize)
                        // SAFETY: `cpu` is below CPU_SETSIZE, the set's capacity.
                        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
                        .collect()
                })
                .unwrap_or_default()
        })
    }

    /// The calling thread's binding.
    pub(super) fn current() -> Option<libc::cpu_set_t> {
        // SAFETY: an all-zero `cpu_set_t` is a valid (empty) set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: pid 0 is the calling thread; `set` is a writable set of the size passed.
        let done =
            unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
        (done == 0).then_some(set)
    }

    /// Binds the calling thread to `set`; false if the host refused.
    pub(super) fn bind(set: &libc::cpu_set_t) -> bool {
        // SAFETY: pid 0 is the calling thread; `set` is a valid set of the size passed.
        unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) == 0 }
    }

    /// The set holding `cpu` alone.
    pub(super) fn only(cpu: usize) -> libc::cpu_set_t {
        // SAFETY: an all-zero `cpu_set_t` is a valid (empty) set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: callers pass a core of `allowed()`, below CPU_SETSIZE.
        unsafe { libc::CPU_SET(cpu, &mut set) };
        set
    }
}

/// Binds the calling pool thread, the launch's worker `index` (1 and up), to its core, if
/// binding is on and the process may use more than one core.
pub(crate) fn bind_pool_thread(index: usize) {
    #[cfg(target_os = "linux")]
    if enabled() {
        let cores = os::allowed();
        if cores.len() > 1 {
            os::bind(&os::only(cores[index % cores.len()]));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = index;
}

/// The stream thread's binding while it runs worker 0 of a launch with helpers: the first
/// allowed core, its earlier binding restored when this is dropped.
pub(crate) struct LaunchBinding {
    #[cfg(target_os = "linux")]
    earlier: Option<libc::cpu_set_t>,
}

impl LaunchBinding {
    /// Binds the calling thread for a launch of `workers` threads (nothing for one).
    pub(crate) fn for_launch(workers: usize) -> LaunchBinding {
        #[cfg(target_os = "linux")]
        {
            let cores = if workers > 1 && enabled() {
                os::allowed()
            } else {
                &[]
            };
            let earlier = match cores {
                [first, _, ..] => os::current().filter(|_| os::bind(&os::only(*first))),
                _ => None,
            };
            LaunchBinding { earlier }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = workers;
            LaunchBinding {}
        }
    }
}

impl Drop for LaunchBinding {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if let Some(earlier) = &self.earlier {
            os::bind(earlier);
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_launch_binding_is_undone_when_it_ends() {
        let before = os::current().expect("affinity");
        let cores = os::allowed();
        {
            let _binding = LaunchBinding::for_launch(2);
            let during = os::current().expect("affinity");
            if cores.len() > 1 && enabled() {
                // SAFETY: CPU_COUNT reads a valid set.
                assert_eq!(unsafe { libc::CPU_COUNT(&during) }, 1);
                // SAFETY: cores[0] is below CPU_SETSIZE.
                assert!(unsafe { libc::CPU_ISSET(cores[0], &during) });
            }
        }
        let after = os::current().expect("affinity");
        // SAFETY: CPU_EQUAL reads two valid sets.
        assert!(unsafe { libc::CPU_EQUAL(&before, &after) });
        let _single = LaunchBinding::for_launch(1);
        let unchanged = os::current().expect("affinity");
        // SAFETY: as above.
        assert!(unsafe { libc::CPU_EQUAL(&before, &unchanged) });
    }
}
