//! The end of a block's phase: which waiting threads may go on. Whole warps waiting at one
//! shuffle are released first (a kernel that shuffles); else, when every live thread waits at
//! the barrier, all of them. Resume states are released two at a time.

use crate::context::{EXITED, VECTOR_SAVED, WAITING, WARP_WAITING};

/// What the end of a phase leads to.
pub(crate) enum Release {
    /// Every thread has exited.
    Done,
    /// Some threads may run again.
    Released,
    /// Threads wait at points that cannot all be passed.
    Diverged,
}

/// Lets threads go on after a phase: whole warps waiting at the same shuffle first (a kernel
/// that `shuffles`); else, when every live thread waits at the barrier, all of them.
pub(crate) fn release(resume: &mut [u32], shuffles: bool) -> Release {
    // Every thread exited (the usual end of a block whose warps ran from shuffle to shuffle
    // within the call): one pass without branches, before the warps' pass.
    if resume.iter().fold(EXITED, |all, &s| all & s) == EXITED {
        return Release::Done;
    }
    if shuffles {
        if let Some(release) = release_warps(resume) {
            return release;
        }
    }
    // One branch-free pass (it runs after every phase of every block), two states at a time.
    let mut waiting = false;
    let mut pairs = resume.chunks_exact_mut(2);
    for pair in &mut pairs {
        let (states, live) = release_pair(u64::from(pair[0]) | u64::from(pair[1]) << 32);
        (pair[0], pair[1]) = (states as u32, (states >> 32) as u32);
        waiting |= live;
    }
    for state in pairs.into_remainder() {
        let (states, live) = release_pair(u64::from(*state) | u64::from(EXITED) << 32);
        *state = states as u32;
        waiting |= live;
    }
    if waiting {
        Release::Released
    } else {
        Release::Done
    }
}

/// Lets threads go on after a phase of a kernel whose barriers the block's table counts
/// (`barrier_table.rs`, which released the threads of every barrier that completed): whole
/// warps waiting at the same shuffle (a kernel that `shuffles`); then the phase is followed by
/// another if some thread may run, else every thread has exited, or the live ones all wait
/// where none can go on.
pub(crate) fn release_counted(resume: &mut [u32], shuffles: bool) -> Release {
    if shuffles {
        release_warps(resume);
    }
    let mut live = false;
    for &state in resume.iter() {
        if state == EXITED {
            continue;
        }
        if state & (WAITING | WARP_WAITING) == 0 {
            return Release::Released;
        }
        live = true;
    }
    if live {
        Release::Diverged
    } else {
        Release::Done
    }
}

/// Two resume states (the low and high halves of `pair`) released: a live thread's without
/// [`WAITING`](crate::context::WAITING), an exited one's ([`EXITED`], all ones) as it is; and whether either is live.
/// Word arithmetic instead of a compare and a select per state: in each half, the low 31 bits
/// plus one carry into bit 31 only when they are all ones, so bit 31 of that sum and of the
/// state together are set exactly for [`EXITED`].
fn release_pair(pair: u64) -> (u64, bool) {
    const LOW: u64 = 0x7fff_ffff_7fff_ffff;
    const TOP: u64 = !LOW;
    let low = pair & LOW;
    let exited = (low + 0x0000_0001_0000_0001) & pair & TOP;
    (low | exited, exited != TOP)
}

/// Releases whole warps waiting at the same shuffle, if any wait at one: a warp whose lanes
/// all hold its first lane's state (the vector function's [`VECTOR_SAVED`] mark aside, which
/// stays), one of them waiting at a shuffle. It runs after every phase of every block: the
/// states are compared two to a word, without early exits, and looked at one by one only in a
/// warp whose lanes differ.
fn release_warps(resume: &mut [u32]) -> Option<Release> {
    const TWICE: u64 = 0x1_0000_0001;
    const MARKS: u64 = VECTOR_SAVED as u64 * TWICE;
    let mut released = false;
    let mut stuck = false;
    for warp in resume.chunks_mut(32) {
        let first = warp[0] & !VECTOR_SAVED;
        let firsts = u64::from(first) * TWICE;
        let mut diff = 0;
        let mut pairs = warp.chunks_exact(2);
        for pair in &mut pairs {
            diff |= ((u64::from(pair[0]) | u64::from(pair[1]) << 32) & !MARKS) ^ firsts;
        }
        for &s in pairs.remainder() {
            diff |= u64::from((s & !VECTOR_SAVED) ^ first);
        }
        if diff == 0 {
            if warp[0] & WARP_WAITING != 0 && warp[0] != EXITED {
                warp.iter_mut().for_each(|s| *s &= !WARP_WAITING);
                released = true;
            }
        } else if warp.iter().any(|&s| s & WARP_WAITING != 0 && s != EXITED) {
            stuck = true;
        }
    }
    if released {
        return Some(Release::Released);
    }
    stuck.then_some(Release::Diverged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::AT_BRANCH;

    /// The pass one state at a time, as it was written before [`release_pair`].
    fn release_one(state: u32) -> (u32, bool) {
        let live = state != EXITED;
        (if live { state & !WAITING } else { EXITED }, live)
    }

    #[test]
    fn warps_at_one_shuffle_are_released_and_parted_ones_are_not() {
        let at = |state: u32| vec![state; 32];
        // Two warps at shuffle 5, some groups marked as the vector function's.
        let mut resume = [at(WARP_WAITING | 5), at(WARP_WAITING | 5)].concat();
        resume[4..8].iter_mut().for_each(|s| *s |= VECTOR_SAVED);
        assert!(matches!(
            release_warps(&mut resume),
            Some(Release::Released)
        ));
        assert!(resume[..4].iter().all(|&s| s == 5));
        assert!(resume[4..8].iter().all(|&s| s == 5 | VECTOR_SAVED));
        // One warp released, the other parted: released now, the other stays waiting.
        let mut resume = [at(WARP_WAITING | 5), at(WARP_WAITING | 5)].concat();
        resume[40] = WARP_WAITING | 6;
        assert!(matches!(
            release_warps(&mut resume),
            Some(Release::Released)
        ));
        assert_eq!(resume[40], WARP_WAITING | 6);
        assert_eq!(resume[41], WARP_WAITING | 5);
        // A lane exited (first, or later), or at another shuffle: parted.
        for (lane, state) in [(0, EXITED), (31, EXITED), (7, WARP_WAITING | 6), (3, 5)] {
            let mut resume = at(WARP_WAITING | 5);
            resume[lane] = state;
            assert!(
                matches!(release_warps(&mut resume), Some(Release::Diverged)),
                "lane {lane} {state:#x}"
            );
        }
        // No warp at a shuffle: for the barrier pass.
        let mut resume = [at(WAITING | 2), at(EXITED)].concat();
        assert!(release_warps(&mut resume).is_none());
    }

    #[test]
    fn two_states_at_a_time_release_as_one_at_a_time() {
        let edges = [
            0,
            1,
            7,
            WAITING,
            WAITING | 7,
            WAITING | AT_BRANCH | 3,
            EXITED,
            EXITED - 1,
            !WAITING,
            WARP_WAITING | 2,
        ];
        let mut states: Vec<u32> = edges.to_vec();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            states.push(x as u32);
        }
        for &a in &states {
            for &b in &edges {
                let (pair, live) = release_pair(u64::from(a) | u64::from(b) << 32);
                let ((a2, a_live), (b2, b_live)) = (release_one(a), release_one(b));
                assert_eq!(
                    (pair as u32, (pair >> 32) as u32),
                    (a2, b2),
                    "{a:#x} {b:#x}"
                );
                assert_eq!(live, a_live || b_live, "{a:#x} {b:#x}");
            }
        }
        // Every thread exited: done, with or without collectives; one live thread among
        // them: released.
        for len in [1usize, 2, 31, 64, 256] {
            for shuffles in [false, true] {
                let mut resume = vec![EXITED; len];
                assert!(matches!(release(&mut resume, shuffles), Release::Done));
                assert!(resume.iter().all(|&s| s == EXITED));
                resume[len / 2] = WAITING | 2;
                assert!(!matches!(release(&mut resume, shuffles), Release::Done));
            }
        }
        // Odd lengths: the last state alone.
        for len in 0..6 {
            let mut resume: Vec<u32> = (0..len).map(|i| states[i * 3]).collect();
            let expected: Vec<u32> = resume.iter().map(|&s| release_one(s).0).collect();
            let any_live = resume.iter().any(|&s| release_one(s).1);
            let verdict = release(&mut resume, false);
            assert_eq!(resume, expected);
            assert_eq!(matches!(verdict, Release::Released), any_live);
        }
    }
}
