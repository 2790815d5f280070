//! Lanes: which shard of a [`ResponseLog`](super::response_log::ResponseLog)
//! a thread may write without a read-modify-write instruction.
//!
//! A shard of the log is written by one thread at a time, so that recording
//! a response is plain stores, and a success at the time of the shard's
//! latest one is one store (`response_log` explains). What makes the writer
//! alone is one of two things:
//!
//! - **An owned lane.** The first [`OWNED`] threads to record a response in
//!   any limiter each take a lane number of their own, kept until the thread
//!   exits (a thread-local guard gives it back), and write shard `lane` of
//!   every limiter. Nothing else ever writes those shards meanwhile, so no
//!   check is needed per response.
//! - **A borrowed shard.** A thread that found every lane taken borrows one
//!   of the [`BORROWED`] shared shards for the length of one record (one
//!   swap to take it, one store to give it back). If all are busy at that
//!   moment, it applies its response under the state's lock instead.
//!
//! Lane numbers are process-wide, not per limiter: a thread writes the same
//! shard number in every limiter it answers for, and a limiter holds
//! [`OWNED`] + [`BORROWED`] shards whatever the number of threads.

#[cfg(not(loom))]
use std::cell::Cell;
#[cfg(not(loom))]
use std::sync::atomic::{AtomicU64, Ordering};

/// Lanes owned by threads: shards `0..OWNED` of every log.
#[cfg(not(loom))]
pub(crate) const OWNED: usize = 8;
/// Shared shards, `OWNED..OWNED + BORROWED`, borrowed per record by threads
/// without a lane.
#[cfg(not(loom))]
pub(crate) const BORROWED: usize = 2;
// Under loom the models pass shard numbers themselves: one of each kind.
#[cfg(loom)]
pub(crate) const OWNED: usize = 1;
#[cfg(loom)]
pub(crate) const BORROWED: usize = 1;

/// The lanes taken, one bit each.
#[cfg(not(loom))]
static TAKEN: AtomicU64 = AtomicU64::new(0);

const _: () = assert!(OWNED <= 64, "one bit of `TAKEN` per lane");

/// A thread's lane, given back when the thread exits.
#[cfg(not(loom))]
struct Lane(Option<usize>);

#[cfg(not(loom))]
impl Lane {
    /// The lowest free lane, if any.
    fn take() -> Self {
        let mut taken = TAKEN.load(Ordering::Relaxed);
        loop {
            let free = !taken & lanes_mask();
            if free == 0 {
                return Self(None);
            }
            let lane = free.trailing_zeros();
            // Acquire: the lane's previous owner's writes (made before it
            // gave the lane back) come before this thread's.
            match TAKEN.compare_exchange_weak(
                taken,
                taken | (1 << lane),
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Self(Some(lane as usize)),
                Err(now) => taken = now,
            }
        }
    }
}

#[cfg(not(loom))]
thread_local! {
    /// The guard that gives the lane back.
    static LANE: Lane = Lane::take();
    /// A copy of the lane, readable without the guard's destructor check:
    /// `usize::MAX` until asked, `OWNED` for none (or given back).
    static CACHED: Cell<usize> = const { Cell::new(usize::MAX) };
}

#[cfg(not(loom))]
impl Drop for Lane {
    fn drop(&mut self) {
        // Whatever this thread records from now on (from other
        // thread-locals' destructors) borrows instead.
        CACHED.with(|cached| cached.set(OWNED));
        if let Some(lane) = self.0 {
            // Release: this thread's writes to its shards come before the
            // next owner's.
            TAKEN.fetch_and(!(1 << lane), Ordering::Release);
        }
    }
}

/// Bits `0..OWNED`.
#[cfg(not(loom))]
const fn lanes_mask() -> u64 {
    if OWNED == 64 {
        u64::MAX
    } else {
        (1 << OWNED) - 1
    }
}

/// This thread's lane: `Some` for the first [`OWNED`] threads alive at
/// once to ask, `None` for the rest (and for a thread that asks while its
/// thread-locals are being torn down).
#[cfg(not(loom))]
#[inline]
pub(crate) fn this_threads_lane() -> Option<usize> {
    let cached = CACHED.with(Cell::get);
    if cached < OWNED {
        return Some(cached);
    }
    if cached == OWNED {
        return None; // asked before: none was free
    }
    take_a_lane()
}

/// This thread's lane if it has one already: `None` too for a thread that
/// never asked (unlike [`this_threads_lane`], never takes one).
#[cfg(not(loom))]
#[inline]
pub(crate) fn this_threads_lane_if_taken() -> Option<usize> {
    let cached = CACHED.with(Cell::get);
    (cached < OWNED).then_some(cached)
}

/// A thread's first ask: take a lane (or none) and remember which. Out of
/// line, so that the asks after it stay a load and a compare.
#[cfg(not(loom))]
#[cold]
#[inline(never)]
fn take_a_lane() -> Option<usize> {
    let lane = LANE.try_with(|lane| lane.0).ok().flatten();
    CACHED.with(|c| c.set(lane.unwrap_or(OWNED)));
    lane
}

/// Under loom there are no thread-locals to own lanes with: every record
/// borrows.
#[cfg(loom)]
pub(crate) fn this_threads_lane() -> Option<usize> {
    None
}

/// Under loom no thread has a lane.
#[cfg(loom)]
pub(crate) fn this_threads_lane_if_taken() -> Option<usize> {
    None
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_thread_keeps_its_lane_and_gives_it_back_when_it_exits() {
        let mine = this_threads_lane();
        assert_eq!(this_threads_lane(), mine, "a thread keeps its lane");
        // Other tests' threads come and go: only what one thread sees of
        // its own lane is certain. A lane given back is free again.
        let theirs = std::thread::spawn(this_threads_lane).join().unwrap();
        if let Some(lane) = theirs {
            assert!(lane < OWNED);
            assert_ne!(Some(lane), mine, "two live threads never share a lane");
        }
    }

    #[test]
    fn live_threads_never_share_a_lane() {
        let barrier = std::sync::Barrier::new(OWNED + 4);
        let lanes: Vec<Option<usize>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..OWNED + 4)
                .map(|_| {
                    scope.spawn(|| {
                        let lane = this_threads_lane();
                        // All hold their lanes at once.
                        barrier.wait();
                        lane
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut owned: Vec<usize> = lanes.iter().flatten().copied().collect();
        let count = owned.len();
        owned.sort_unstable();
        owned.dedup();
        assert_eq!(owned.len(), count, "a lane owned twice: {lanes:?}");
        assert!(count <= OWNED);
        assert!(lanes.iter().any(Option::is_none), "more threads than lanes");
    }
}
