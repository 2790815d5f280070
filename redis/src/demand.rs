//! [`Demand`]: what one member of a fleet's rate limiter would send, as it tells the store.

/// What a member of a fleet's rate limiter would send, as its task tells the store at each
/// exchange: the store adds the members' demands up, so that members that ask for less than
/// an equal share leave the rest to those that ask for more ([`member_rate`](crate::member_rate)).
///
/// ```
/// use rebound_redis::Demand;
///
/// // Held at 100/s, it sent 20/s: it asks for 20/s.
/// assert_eq!(Demand::of(20.0, Some(100.0)), Demand::Rate(20.0));
/// // Held at 100/s, it sent 85/s: the held rate limits it.
/// assert_eq!(Demand::of(85.0, Some(100.0)), Demand::Unbounded);
/// // Not held yet: nothing says how much it would send.
/// assert_eq!(Demand::of(20.0, None), Demand::Unbounded);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Demand {
    /// This many requests per second: less than the member is held at.
    Rate(f64),
    /// As much as it is given: the rate it is held at limits it, or it is not held yet.
    Unbounded,
}

impl Demand {
    /// The share of its held rate a member must send to count as limited by it: below it, the
    /// member sends what it wants.
    pub const LIMITED_FROM: f64 = 0.8;

    /// The demand of a member that sent `sent` requests per second over its last period while
    /// held at `held` (`None`: not held).
    #[must_use]
    pub fn of(sent: f64, held: Option<f64>) -> Self {
        match held {
            Some(held) if sent < Self::LIMITED_FROM * held => Self::Rate(sent.max(0.0)),
            _ => Self::Unbounded,
        }
    }

    /// The demand as the store takes it: whole milli-requests per second (at most a million
    /// requests per second), or [`u32::MAX`] for [`Unbounded`](Self::Unbounded).
    #[must_use]
    pub fn milli(self) -> u32 {
        match self {
            Self::Rate(rate) => crate::limiter::milli(rate),
            Self::Unbounded => u32::MAX,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demands_in_milli_requests() {
        assert_eq!(Demand::Rate(1.5).milli(), 1500);
        assert_eq!(Demand::Rate(f64::NAN).milli(), 0);
        assert_eq!(Demand::Rate(1e12).milli(), 1_000_000_000);
        assert_eq!(Demand::Unbounded.milli(), u32::MAX);
        assert_eq!(Demand::of(-1.0, Some(10.0)), Demand::Rate(0.0));
        assert_eq!(Demand::of(f64::NAN, Some(10.0)), Demand::Unbounded);
        assert_eq!(Demand::of(8.0, Some(10.0)), Demand::Unbounded);
        assert_eq!(Demand::of(7.9, Some(10.0)), Demand::Rate(7.9));
    }
}
