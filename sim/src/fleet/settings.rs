//! [`LeaseSettings`]: the fleet quota's settings that shape the model, with
//! `rebound-redis`'s defaults (`redis/src/config.rs`, `FleetQuotaConfig`).

/// The fleet quota's settings; [`Default`] is `FleetQuotaConfig`'s.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LeaseSettings {
    /// The fleet's tokens (500, the AWS standard quota).
    pub capacity: u32,
    /// Tokens a process leases at a time (25: five retries).
    pub lease_size: u32,
    /// Seconds between two refreshes of a lease (the TTL / 3: 10/3 s).
    pub refresh_period: f64,
    /// Seconds of one call to the store, there and back (1 ms); the store
    /// runs the call half-way.
    pub round_trip: f64,
}

impl Default for LeaseSettings {
    fn default() -> Self {
        Self {
            capacity: 500,
            lease_size: 25,
            refresh_period: 10.0 / 3.0,
            round_trip: 0.001,
        }
    }
}

impl LeaseSettings {
    /// The balance below which a process refreshes at once: half a lease,
    /// rounded up (`FleetQuotaConfig::low_water_mark`).
    #[must_use]
    pub fn low_water(&self) -> u32 {
        self.lease_size.div_ceil(2)
    }
}
