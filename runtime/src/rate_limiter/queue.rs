//! [`SendQueue`]: the order in which callers waiting for a send token are
//! served.
//!
//! Without it, callers that wait for the rate compete for each token as it is
//! earned, and an unlucky one can lose round after round (in a 200-caller load
//! test, one waited 60 s while the queue ahead of it implied 4 s). With it,
//! each waiting caller holds a ticket, a token goes to the first ticket in
//! line, and each caller is told to wait for the tokens the callers ahead of
//! it need plus its own — recomputed every time it asks, at the current rate,
//! so a rate that recovers takes effect at once (a wait booked in advance
//! would not shorten, and under load bookings pile up).
//!
//! A caller that gives up while waiting (its request was dropped, its budget
//! ran out) never asks again: its ticket expires shortly after the time it was
//! told to come back, and the callers behind it move up.

use std::collections::VecDeque;

/// How long after the time it was told to come back a ticket is kept for a
/// caller that has not asked again: room for a sleeper that wakes late. A
/// caller that gave up delays the ones behind it by at most its wait plus
/// this.
const GRACE_SECS: f64 = 0.5;

/// One waiting caller.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Waiter {
    ticket: u64,
    /// When the ticket lapses if its caller has not asked again.
    expires: f64,
}

/// The callers waiting for a send token, first come first served.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SendQueue {
    waiters: VecDeque<Waiter>,
    next_ticket: u64,
}

impl SendQueue {
    /// Forgets tickets whose callers did not come back in time, then says
    /// how many waiting callers are ahead of `ticket` (all of them for a
    /// caller without a ticket, or whose ticket lapsed).
    pub(crate) fn ahead_of(&mut self, ticket: Option<u64>, now: f64) -> usize {
        self.waiters.retain(|w| w.expires >= now);
        ticket
            .and_then(|t| self.position(t))
            .unwrap_or(self.waiters.len())
    }

    /// The caller holding `ticket` (if any) was served, or will not wait:
    /// it leaves the line.
    pub(crate) fn leave(&mut self, ticket: Option<u64>) {
        if let Some(index) = ticket.and_then(|t| self.position(t)) {
            self.waiters.remove(index);
        }
    }

    /// The caller must wait `wait` seconds from `now`: keeps its place (or
    /// gives it one at the back) until a little after it is due. Returns its
    /// ticket.
    pub(crate) fn wait(&mut self, ticket: Option<u64>, now: f64, wait: f64) -> u64 {
        let expires = now + wait + GRACE_SECS;
        if let Some(index) = ticket.and_then(|t| self.position(t)) {
            let waiter = &mut self.waiters[index];
            waiter.expires = expires;
            return waiter.ticket;
        }
        let ticket = self.next_ticket;
        self.next_ticket = self.next_ticket.wrapping_add(1);
        self.waiters.push_back(Waiter { ticket, expires });
        ticket
    }

    /// Where `ticket` stands in line. Tickets are handed out in increasing
    /// order and joined at the back, so the line is sorted by ticket.
    fn position(&self, ticket: u64) -> Option<usize> {
        self.waiters
            .binary_search_by_key(&ticket, |w| w.ticket)
            .ok()
    }

    /// How many tickets the line holds (lapsed ones stay until the next
    /// [`ahead_of`](Self::ahead_of)).
    pub(crate) fn len(&self) -> usize {
        self.waiters.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_come_first_served_and_lapsed_tickets_leave() {
        let mut queue = SendQueue::default();
        let a = queue.wait(None, 0.0, 1.0);
        let b = queue.wait(None, 0.0, 2.0);
        assert_eq!(queue.ahead_of(Some(a), 0.5), 0);
        assert_eq!(queue.ahead_of(Some(b), 0.5), 1);
        assert_eq!(queue.ahead_of(None, 0.5), 2);
        // `a` never comes back: after 1 s + grace it is gone.
        assert_eq!(queue.ahead_of(Some(b), 1.6), 0);
        queue.leave(Some(b));
        assert_eq!(queue.len(), 0);
        // Asking again keeps the same ticket.
        let c = queue.wait(None, 2.0, 1.0);
        assert_eq!(queue.wait(Some(c), 2.5, 1.0), c);
        assert_eq!(queue.len(), 1);
    }
}
