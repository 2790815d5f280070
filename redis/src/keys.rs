//! The fleet's keys in the store.
//!
//! All of them carry the fleet name as a hash tag (`{<fleet>}`), so that a Redis or Valkey
//! cluster puts them in one slot and a script may touch all of them.

/// The keys of one fleet, in the order its scripts take them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FleetKeys {
    /// The quota's: the pool (a hash: `capacity`, `available`, `held_total`, `owed_total`),
    /// the leases (a sorted set: lease id → expiry in milliseconds of the store's clock), the
    /// tokens each lease holds (a hash: lease id → tokens) and what each lease's last report
    /// said it spent and has not refunded yet (a hash: lease id → tokens).
    pub(crate) quota: [String; 4],
    /// The rate limiter's: its state (a hash: `cuts`, `w_max`, `cut_ms`, `sum`), its members
    /// (a sorted set: member id → expiry), their rates (a hash: member id → measured rate in
    /// milli-requests per second) and their demands (a hash: member id → the rate it would
    /// send, or `u32::MAX` when it would send more than it is held at).
    pub(crate) limiter: [String; 4],
}

impl FleetKeys {
    /// The keys of `fleet`, a name [`FleetQuotaConfig`](crate::FleetQuotaConfig) validated
    /// (no braces, which would move the hash tag).
    pub(crate) fn new(fleet: &str) -> Self {
        let key = |name: &str| format!("rebound:{{{fleet}}}:{name}");
        Self {
            quota: [key("pool"), key("leases"), key("held"), key("owed")],
            limiter: [key("limiter"), key("members"), key("rates"), key("demands")],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_share_one_hash_tag() {
        let keys = FleetKeys::new("checkout");
        assert_eq!(
            keys.quota,
            [
                "rebound:{checkout}:pool",
                "rebound:{checkout}:leases",
                "rebound:{checkout}:held",
                "rebound:{checkout}:owed"
            ]
        );
        assert_eq!(
            keys.limiter,
            [
                "rebound:{checkout}:limiter",
                "rebound:{checkout}:members",
                "rebound:{checkout}:rates",
                "rebound:{checkout}:demands"
            ]
        );
    }
}
