//! A discrete-event loop in virtual time: a binary heap of events ordered by
//! time, ties broken first-in first-out, so a run is fully determined by the
//! events pushed.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// One scheduled event.
#[derive(Debug)]
struct Scheduled<E> {
    at: f64,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Scheduled<E> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<E> Eq for Scheduled<E> {}

impl<E> PartialOrd for Scheduled<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<E> Ord for Scheduled<E> {
    /// Reversed, so that the max-heap pops the earliest event (then the
    /// earliest pushed).
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .at
            .total_cmp(&self.at)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

/// A priority queue of events in virtual time (`f64`, in the unit of the
/// experiment: milliseconds for [`occ`](crate::occ), seconds for the others).
///
/// # Examples
///
/// ```
/// use rebound_sim::event_queue::EventQueue;
///
/// let mut queue = EventQueue::new();
/// queue.schedule(5.0, "b");
/// queue.schedule(1.0, "a");
/// queue.schedule(5.0, "c");
/// assert_eq!(queue.pop(), Some((1.0, "a")));
/// assert_eq!(queue.now(), 1.0);
/// assert_eq!(queue.pop(), Some((5.0, "b")));
/// assert_eq!(queue.pop(), Some((5.0, "c")));
/// assert_eq!(queue.pop(), None);
/// ```
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Scheduled<E>>,
    now: f64,
    seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue at time zero.
    #[must_use]
    pub fn new() -> Self {
        Self {
            heap: BinaryHeap::new(),
            now: 0.0,
            seq: 0,
        }
    }

    /// The time of the last event popped (zero before the first).
    #[must_use]
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Schedules `event` at virtual time `at`.
    ///
    /// # Panics
    ///
    /// If `at` is NaN or earlier than [`now`](Self::now): time never runs
    /// backwards.
    pub fn schedule(&mut self, at: f64, event: E) {
        assert!(
            at >= self.now,
            "event at {at} scheduled before now ({})",
            self.now
        );
        self.heap.push(Scheduled {
            at,
            seq: self.seq,
            event,
        });
        self.seq += 1;
    }

    /// Removes the earliest event and advances [`now`](Self::now) to its time.
    pub fn pop(&mut self) -> Option<(f64, E)> {
        let Scheduled { at, event, .. } = self.heap.pop()?;
        self.now = at;
        Some((at, event))
    }

    /// How many events are scheduled.
    #[must_use]
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is scheduled.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}
