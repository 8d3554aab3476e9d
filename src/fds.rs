//! Open files: `serve` raises its soft limit to the hard one at start, and sizes the live
//! refresh streams below it, so that with every stream slot taken there are still files for
//! the database pool, the listener, mail connections and ordinary requests.

/// Open files kept free of live-refresh streams: the database pool (32) and its listener,
/// SMTP connections, the HTTP listener, standard streams, the runtime's own, log and mailbox
/// files, and the ordinary requests that must still be answered (`/healthz`, pages, the API).
pub const RESERVED_FILES: u64 = 200;

/// Raises this process's soft limit on open files to its hard limit; the limit in force after
/// (the soft one, raised or not). `None` where the system does not say.
pub fn raise_open_files() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given, which lives for the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return None;
    }
    // An unlimited hard limit is not a value the kernel takes for the soft one: stay within
    // the usual per-process ceiling.
    let target = if limit.rlim_max == libc::RLIM_INFINITY {
        1 << 20
    } else {
        limit.rlim_max
    };
    if limit.rlim_cur < target {
        let raised = libc::rlimit {
            rlim_cur: target,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: setrlimit reads the struct it is given, which lives for the call.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            limit.rlim_cur = target;
        } else {
            tracing::warn!(
                soft = limit.rlim_cur,
                hard = limit.rlim_max,
                "could not raise the limit on open files"
            );
        }
    }
    Some(limit.rlim_cur)
}

/// The total of live-refresh streams to allow: the configured cap, or fewer where the limit on
/// open files leaves less than that beyond [`RESERVED_FILES`].
pub fn stream_cap(configured: usize, open_files: Option<u64>) -> usize {
    match open_files {
        Some(limit) => {
            let room = usize::try_from(limit.saturating_sub(RESERVED_FILES)).unwrap_or(usize::MAX);
            configured.min(room)
        }
        None => configured,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_leaves_room_below_the_limit() {
        assert_eq!(stream_cap(2000, Some(65536)), 2000);
        assert_eq!(stream_cap(2000, Some(1024)), 824);
        assert_eq!(stream_cap(2000, Some(256)), 56);
        assert_eq!(stream_cap(2000, Some(100)), 0);
        assert_eq!(stream_cap(2000, None), 2000);
    }

    #[test]
    fn the_soft_limit_is_raised_to_the_hard_one() {
        let limit = raise_open_files().expect("Linux says");
        let mut now = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: as above.
        assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut now) }, 0);
        assert_eq!(now.rlim_cur, limit);
        assert!(now.rlim_cur == now.rlim_max || now.rlim_max == libc::RLIM_INFINITY);
    }
}
