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
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SendQueue {
    waiters: VecDeque<Waiter>,
    next_ticket: u64,
    /// No ticket lapses before this time (a lower bound: a ticket renewed
    /// later lapses later). Lapsed tickets are looked for only once it has
    /// passed, not on every ask: every waiting caller asks at least every
    /// 0.25 s, so scanning the whole line each time would cost the line's
    /// length squared per quarter second.
    no_lapse_before: f64,
}

impl Default for SendQueue {
    fn default() -> Self {
        Self {
            waiters: VecDeque::new(),
            next_ticket: 0,
            no_lapse_before: f64::INFINITY,
        }
    }
}

impl SendQueue {
    /// Forgets tickets whose callers did not come back in time, then says
    /// how many waiting callers are ahead of `ticket` (all of them for a
    /// caller without a ticket, or whose ticket lapsed).
    pub(crate) fn ahead_of(&mut self, ticket: Option<u64>, now: f64) -> usize {
        // A NaN `now` looks too (and finds every place lapsed, as before).
        if now > self.no_lapse_before || now.is_nan() {
            self.waiters.retain(|w| w.expires >= now);
            self.no_lapse_before = self
                .waiters
                .iter()
                .map(|w| w.expires)
                .fold(f64::INFINITY, f64::min);
        }
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
        self.no_lapse_before = self.no_lapse_before.min(expires);
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

    /// The line as it was before lapsed tickets were looked for lazily:
    /// every ask scans it. The lazy line must answer exactly the same.
    #[derive(Default)]
    struct Scanning {
        waiters: Vec<Waiter>,
        next_ticket: u64,
    }

    impl Scanning {
        fn ahead_of(&mut self, ticket: Option<u64>, now: f64) -> usize {
            self.waiters.retain(|w| w.expires >= now);
            ticket
                .and_then(|t| self.waiters.iter().position(|w| w.ticket == t))
                .unwrap_or(self.waiters.len())
        }
        fn wait(&mut self, ticket: Option<u64>, now: f64, wait: f64) -> u64 {
            let expires = now + wait + GRACE_SECS;
            if let Some(w) = self.waiters.iter_mut().find(|w| Some(w.ticket) == ticket) {
                w.expires = expires;
                return w.ticket;
            }
            let ticket = self.next_ticket;
            self.next_ticket += 1;
            self.waiters.push(Waiter { ticket, expires });
            ticket
        }
        fn leave(&mut self, ticket: Option<u64>) {
            self.waiters.retain(|w| Some(w.ticket) != ticket);
        }
    }

    proptest::proptest! {
        #[test]
        fn lazy_lapsing_answers_as_scanning_every_time(
            ops in proptest::collection::vec((0_u8..3, 0_usize..8, -1.0..3.0_f64, 0.0..0.3_f64), 1..200)
        ) {
            let (mut lazy, mut scanning) = (SendQueue::default(), Scanning::default());
            let mut tickets: Vec<u64> = Vec::new();
            let mut now = 0.0;
            for (op, pick, step, wait) in ops {
                now += step.max(0.0) * 0.2; // mostly forward, sometimes still
                let ticket = tickets.get(pick).copied();
                match op {
                    0 => proptest::prop_assert_eq!(
                        lazy.ahead_of(ticket, now),
                        scanning.ahead_of(ticket, now)
                    ),
                    1 => {
                        let t = lazy.wait(ticket, now, wait);
                        proptest::prop_assert_eq!(t, scanning.wait(ticket, now, wait));
                        if !tickets.contains(&t) {
                            tickets.push(t);
                        }
                    }
                    _ => {
                        lazy.leave(ticket);
                        scanning.leave(ticket);
                    }
                }
            }
        }
    }

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
