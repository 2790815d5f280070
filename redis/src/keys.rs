//! The fleet's keys in the store.
//!
//! All three carry the fleet name as a hash tag (`{<fleet>}`), so that a Redis or Valkey
//! cluster puts them in one slot and a script may touch all of them.

/// The keys of one fleet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FleetKeys {
    /// A hash: `capacity`, `available`, `held_total`.
    pub(crate) pool: String,
    /// A sorted set: lease id → expiry (milliseconds of the store's clock).
    pub(crate) leases: String,
    /// A hash: lease id → tokens held.
    pub(crate) held: String,
}

impl FleetKeys {
    /// The keys of `fleet`, a name [`FleetQuotaConfig`](crate::FleetQuotaConfig) validated
    /// (no braces, which would move the hash tag).
    pub(crate) fn new(fleet: &str) -> Self {
        Self {
            pool: format!("rebound:{{{fleet}}}:pool"),
            leases: format!("rebound:{{{fleet}}}:leases"),
            held: format!("rebound:{{{fleet}}}:held"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_share_one_hash_tag() {
        let keys = FleetKeys::new("checkout");
        assert_eq!(keys.pool, "rebound:{checkout}:pool");
        assert_eq!(keys.leases, "rebound:{checkout}:leases");
        assert_eq!(keys.held, "rebound:{checkout}:held");
    }
}
