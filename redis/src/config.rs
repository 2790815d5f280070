//! [`FleetQuotaConfig`]: which fleet, how big its quota, and how a process leases from it.
//!
//! Everything is checked once, in [`FleetQuotaConfigBuilder::build`], so a client never meets
//! a fleet name that would break the keys' hash tag or a lease that lapses before its refresh.

use std::time::Duration;

use thiserror::Error;

/// The longest fleet name, in bytes.
pub const MAX_FLEET_NAME_LEN: usize = 200;

/// The longest lease TTL: a day. Longer leases would keep a crashed process's tokens from the
/// fleet for longer than any retry storm lasts.
pub const MAX_LEASE_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// How a process shares its fleet's retry quota: the fleet's name and capacity, the size and
/// lifetime of its leases, and the timeouts of its calls to the store.
///
/// Build one with [`FleetQuotaConfig::builder`].
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_redis::FleetQuotaConfig;
///
/// let config = FleetQuotaConfig::builder("checkout-api")
///     .lease_ttl(Duration::from_secs(6))
///     .build()?;
/// assert_eq!(config.capacity(), 500);
/// assert_eq!(config.lease_size(), 25);
/// assert_eq!(config.refresh_period(), Duration::from_secs(2)); // a third of the TTL
/// # Ok::<(), rebound_redis::ConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetQuotaConfig {
    fleet: String,
    capacity: u32,
    lease_size: u32,
    lease_ttl: Duration,
    refresh_period: Duration,
    rate_period: Duration,
    call_timeout: Duration,
    connect_timeout: Duration,
    strict_start: bool,
    fallback_capacity: u32,
}

impl FleetQuotaConfig {
    /// The AWS SDKs' retry quota: 500 tokens.
    pub const DEFAULT_CAPACITY: u32 = 500;
    /// Tokens leased at a time: 25, five retries' worth.
    pub const DEFAULT_LEASE_SIZE: u32 = 25;
    /// How long a lease lives without a refresh: 10 s.
    pub const DEFAULT_LEASE_TTL: Duration = Duration::from_secs(10);
    /// How often a [`FleetLimiter`](crate::FleetLimiter) exchanges rates with the store: 1 s
    /// (or a third of the lease TTL, when that is shorter).
    pub const DEFAULT_RATE_PERIOD: Duration = Duration::from_secs(1);
    /// The longest a call to the store may take: 50 ms.
    pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_millis(50);
    /// The longest [`connect`](crate::connect) waits for the store under
    /// [`strict_start`](FleetQuotaConfigBuilder::strict_start): 1 s.
    pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
    /// The local bucket a [`FleetQuota`](crate::FleetQuota) falls back to while the store
    /// fails: 50 tokens (ten retries), or the fleet's capacity when that is smaller.
    pub const DEFAULT_FALLBACK_CAPACITY: u32 = 50;

    /// A builder for the fleet `fleet`, every other setting at its default.
    ///
    /// # Default
    ///
    /// | setting | default |
    /// |---|---|
    /// | [`capacity`](FleetQuotaConfigBuilder::capacity) | 500 tokens |
    /// | [`lease_size`](FleetQuotaConfigBuilder::lease_size) | 25 tokens |
    /// | [`lease_ttl`](FleetQuotaConfigBuilder::lease_ttl) | 10 s |
    /// | [`refresh_period`](FleetQuotaConfigBuilder::refresh_period) | a third of the lease TTL |
    /// | [`rate_period`](FleetQuotaConfigBuilder::rate_period) | 1 s, at most a third of the lease TTL |
    /// | [`call_timeout`](FleetQuotaConfigBuilder::call_timeout) | 50 ms |
    /// | [`connect_timeout`](FleetQuotaConfigBuilder::connect_timeout) | 1 s |
    /// | [`strict_start`](FleetQuotaConfigBuilder::strict_start) | off |
    /// | [`fallback_capacity`](FleetQuotaConfigBuilder::fallback_capacity) | 50 tokens, at most the capacity |
    pub fn builder(fleet: impl Into<String>) -> FleetQuotaConfigBuilder {
        FleetQuotaConfigBuilder {
            fleet: fleet.into(),
            capacity: Self::DEFAULT_CAPACITY,
            lease_size: Self::DEFAULT_LEASE_SIZE,
            lease_ttl: Self::DEFAULT_LEASE_TTL,
            refresh_period: None,
            rate_period: None,
            call_timeout: Self::DEFAULT_CALL_TIMEOUT,
            connect_timeout: Self::DEFAULT_CONNECT_TIMEOUT,
            strict_start: false,
            fallback_capacity: None,
        }
    }

    /// The fleet's name: processes that name the same fleet share one quota.
    #[must_use]
    pub fn fleet(&self) -> &str {
        &self.fleet
    }

    /// The fleet's quota, in tokens.
    #[must_use]
    pub const fn capacity(&self) -> u32 {
        self.capacity
    }

    /// How many tokens a process leases at a time.
    #[must_use]
    pub const fn lease_size(&self) -> u32 {
        self.lease_size
    }

    /// How long a lease lives without a refresh; then its tokens go back to the pool.
    #[must_use]
    pub const fn lease_ttl(&self) -> Duration {
        self.lease_ttl
    }

    /// How often a process refreshes its lease (reports), shorter than the TTL.
    #[must_use]
    pub const fn refresh_period(&self) -> Duration {
        self.refresh_period
    }

    /// How often a [`FleetLimiter`](crate::FleetLimiter) exchanges rates with the store.
    #[must_use]
    pub const fn rate_period(&self) -> Duration {
        self.rate_period
    }

    /// The longest one call to the store may take.
    #[must_use]
    pub const fn call_timeout(&self) -> Duration {
        self.call_timeout
    }

    /// How long [`connect`](crate::connect) waits for the store under strict start, and each
    /// reconnection attempt's timeout.
    #[must_use]
    pub const fn connect_timeout(&self) -> Duration {
        self.connect_timeout
    }

    /// Whether [`connect`](crate::connect) fails when the store cannot be reached.
    #[must_use]
    pub const fn strict_start(&self) -> bool {
        self.strict_start
    }

    /// The size of the local bucket a [`FleetQuota`](crate::FleetQuota) draws from while the
    /// store fails (at most the capacity).
    #[must_use]
    pub const fn fallback_capacity(&self) -> u32 {
        self.fallback_capacity
    }

    /// The balance below which a [`FleetQuota`](crate::FleetQuota) tops its lease up at once
    /// rather than at the next refresh: half a lease, rounded up.
    #[must_use]
    pub const fn low_water_mark(&self) -> u32 {
        self.lease_size.div_ceil(2)
    }

    /// The lease TTL in whole milliseconds, as the scripts take it (at least 1).
    pub(crate) fn lease_ttl_ms(&self) -> u64 {
        // `build` keeps the TTL between 1 ms and a day.
        u64::try_from(self.lease_ttl.as_millis()).unwrap_or(u64::MAX)
    }
}

/// Builds a [`FleetQuotaConfig`]; see [`FleetQuotaConfig::builder`] for the defaults.
#[derive(Debug, Clone)]
#[must_use]
pub struct FleetQuotaConfigBuilder {
    fleet: String,
    capacity: u32,
    lease_size: u32,
    lease_ttl: Duration,
    refresh_period: Option<Duration>,
    rate_period: Option<Duration>,
    call_timeout: Duration,
    connect_timeout: Duration,
    strict_start: bool,
    fallback_capacity: Option<u32>,
}

impl FleetQuotaConfigBuilder {
    /// The fleet's quota in tokens (at least 1). Every process of the fleet must say the same:
    /// the store keeps the first one's and rejects another.
    pub const fn capacity(mut self, capacity: u32) -> Self {
        self.capacity = capacity;
        self
    }

    /// How many tokens a process leases at a time (at least 1).
    pub const fn lease_size(mut self, lease_size: u32) -> Self {
        self.lease_size = lease_size;
        self
    }

    /// How long a lease lives without a refresh (1 ms to a day, counted in whole milliseconds).
    pub const fn lease_ttl(mut self, ttl: Duration) -> Self {
        self.lease_ttl = ttl;
        self
    }

    /// How often a process refreshes its lease: more than zero, less than the TTL.
    pub const fn refresh_period(mut self, period: Duration) -> Self {
        self.refresh_period = Some(period);
        self
    }

    /// How often a [`FleetLimiter`](crate::FleetLimiter) tells the store this process's rate
    /// and reads the fleet's: more than zero, less than the TTL (its membership lapses after
    /// one TTL without a call). A throttle is told at once whatever the period; a shorter
    /// period lets a fleet's rate climb back sooner after a cut from a low measured rate.
    pub const fn rate_period(mut self, period: Duration) -> Self {
        self.rate_period = Some(period);
        self
    }

    /// The longest one call to the store may take (more than zero).
    pub const fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// How long [`connect`](crate::connect) waits for the store under strict start, and each
    /// reconnection attempt's timeout (more than zero).
    pub const fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// When on, [`connect`](crate::connect) fails if the store cannot be reached or rejects
    /// the fleet's settings; when off (the default), it connects on first use.
    pub const fn strict_start(mut self, strict: bool) -> Self {
        self.strict_start = strict;
        self
    }

    /// The size of the local bucket a [`FleetQuota`](crate::FleetQuota) falls back to while
    /// the store fails: at least 1, at most the capacity. Each process has its own, so while
    /// the store is down a fleet of `n` processes allows `n` times this many tokens.
    pub const fn fallback_capacity(mut self, tokens: u32) -> Self {
        self.fallback_capacity = Some(tokens);
        self
    }

    /// Checks the settings.
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] naming the first setting that is out of range.
    pub fn build(self) -> Result<FleetQuotaConfig, ConfigError> {
        validate_fleet_name(&self.fleet)?;
        if self.capacity == 0 {
            return Err(ConfigError::ZeroCapacity);
        }
        if self.lease_size == 0 {
            return Err(ConfigError::ZeroLeaseSize);
        }
        if self.lease_ttl < Duration::from_millis(1) || self.lease_ttl > MAX_LEASE_TTL {
            return Err(ConfigError::LeaseTtlOutOfRange(self.lease_ttl));
        }
        let refresh_period = self.refresh_period.unwrap_or(self.lease_ttl / 3);
        if refresh_period.is_zero() {
            return Err(ConfigError::ZeroRefreshPeriod);
        }
        if refresh_period >= self.lease_ttl {
            return Err(ConfigError::RefreshNotBeforeExpiry {
                refresh_period,
                lease_ttl: self.lease_ttl,
            });
        }
        let rate_period = self
            .rate_period
            .unwrap_or(FleetQuotaConfig::DEFAULT_RATE_PERIOD.min(self.lease_ttl / 3));
        if rate_period.is_zero() || rate_period >= self.lease_ttl {
            return Err(ConfigError::RatePeriodOutOfRange {
                rate_period,
                lease_ttl: self.lease_ttl,
            });
        }
        if self.call_timeout.is_zero() {
            return Err(ConfigError::ZeroCallTimeout);
        }
        if self.connect_timeout.is_zero() {
            return Err(ConfigError::ZeroConnectTimeout);
        }
        let fallback_capacity = match self.fallback_capacity {
            None => FleetQuotaConfig::DEFAULT_FALLBACK_CAPACITY.min(self.capacity),
            Some(tokens) if tokens == 0 || tokens > self.capacity => {
                return Err(ConfigError::FallbackOutOfRange {
                    fallback_capacity: tokens,
                    capacity: self.capacity,
                });
            }
            Some(tokens) => tokens,
        };
        Ok(FleetQuotaConfig {
            fleet: self.fleet,
            capacity: self.capacity,
            lease_size: self.lease_size,
            lease_ttl: self.lease_ttl,
            refresh_period,
            rate_period,
            call_timeout: self.call_timeout,
            connect_timeout: self.connect_timeout,
            strict_start: self.strict_start,
            fallback_capacity,
        })
    }
}

/// A fleet name goes inside the keys' hash tag, `rebound:{<fleet>}:pool`: a brace would end the
/// tag early (or open another), and control characters have no place in a key.
fn validate_fleet_name(name: &str) -> Result<(), ConfigError> {
    let invalid = |reason| ConfigError::InvalidFleetName {
        name: name.to_owned(),
        reason,
    };
    if name.is_empty() {
        return Err(invalid(FleetNameProblem::Empty));
    }
    if name.len() > MAX_FLEET_NAME_LEN {
        return Err(invalid(FleetNameProblem::TooLong));
    }
    if name.contains(['{', '}']) {
        return Err(invalid(FleetNameProblem::Brace));
    }
    if name.chars().any(|c| c.is_ascii_control()) {
        return Err(invalid(FleetNameProblem::ControlCharacter));
    }
    Ok(())
}

/// A setting of [`FleetQuotaConfig`] out of range.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The fleet name cannot be used in the store's keys.
    #[error("invalid fleet name {name:?}: {reason}")]
    InvalidFleetName {
        /// The name as given.
        name: String,
        /// What is wrong with it.
        reason: FleetNameProblem,
    },
    /// A quota of no tokens would forbid every retry: use no quota instead.
    #[error("the fleet's capacity must be at least 1 token")]
    ZeroCapacity,
    /// A lease of no tokens would never allow a retry.
    #[error("the lease size must be at least 1 token")]
    ZeroLeaseSize,
    /// The lease TTL is shorter than a millisecond or longer than a day.
    #[error("the lease TTL must be between 1 ms and 24 h, not {0:?}")]
    LeaseTtlOutOfRange(Duration),
    /// A refresh period of zero would refresh without pause.
    #[error("the refresh period must be more than zero")]
    ZeroRefreshPeriod,
    /// The lease would lapse before its refresh.
    #[error(
        "the refresh period ({refresh_period:?}) must be shorter than the lease TTL \
         ({lease_ttl:?}): the lease would lapse before it is refreshed"
    )]
    RefreshNotBeforeExpiry {
        /// The refresh period asked for.
        refresh_period: Duration,
        /// The lease TTL.
        lease_ttl: Duration,
    },
    /// The rate limiter's period is zero, or its membership would lapse between two calls.
    #[error(
        "the rate period ({rate_period:?}) must be more than zero and shorter than the lease \
         TTL ({lease_ttl:?})"
    )]
    RatePeriodOutOfRange {
        /// The rate period asked for.
        rate_period: Duration,
        /// The lease TTL.
        lease_ttl: Duration,
    },
    /// Every call would time out.
    #[error("the call timeout must be more than zero")]
    ZeroCallTimeout,
    /// Every connection attempt would time out.
    #[error("the connect timeout must be more than zero")]
    ZeroConnectTimeout,
    /// The fallback bucket is empty (no retry while the store fails) or larger than the
    /// fleet's whole quota.
    #[error(
        "the fallback capacity must be between 1 and the capacity ({capacity}), not \
         {fallback_capacity}"
    )]
    FallbackOutOfRange {
        /// The fallback capacity asked for.
        fallback_capacity: u32,
        /// The fleet's capacity.
        capacity: u32,
    },
}

/// What is wrong with a fleet name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum FleetNameProblem {
    /// The name is empty.
    #[error("it is empty")]
    Empty,
    /// The name is longer than [`MAX_FLEET_NAME_LEN`] bytes.
    #[error("it is longer than 200 bytes")]
    TooLong,
    /// The name holds `{` or `}`, which would break the keys' hash tag.
    #[error("it holds '{{' or '}}', which would break the keys' hash tag")]
    Brace,
    /// The name holds an ASCII control character.
    #[error("it holds a control character")]
    ControlCharacter,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name_problem(name: &str) -> Option<FleetNameProblem> {
        match FleetQuotaConfig::builder(name).build() {
            Ok(_) => None,
            Err(ConfigError::InvalidFleetName {
                name: named,
                reason,
            }) => {
                assert_eq!(named, name, "the error names the name");
                Some(reason)
            }
            Err(other) => panic!("unexpected error {other:?}"),
        }
    }

    #[test]
    fn defaults() {
        let config = FleetQuotaConfig::builder("f").build().unwrap();
        assert_eq!(config.fleet(), "f");
        assert_eq!(config.capacity(), 500);
        assert_eq!(config.lease_size(), 25);
        assert_eq!(config.lease_ttl(), Duration::from_secs(10));
        assert_eq!(config.refresh_period(), Duration::from_secs(10) / 3);
        assert_eq!(config.call_timeout(), Duration::from_millis(50));
        assert_eq!(config.connect_timeout(), Duration::from_secs(1));
        assert!(!config.strict_start());
        assert_eq!(config.lease_ttl_ms(), 10_000);
        assert_eq!(config.fallback_capacity(), 50);
        assert_eq!(config.low_water_mark(), 13);
    }

    #[test]
    fn fallback_capacity() {
        let small = FleetQuotaConfig::builder("f").capacity(20).build().unwrap();
        assert_eq!(
            small.fallback_capacity(),
            20,
            "the default is capped at the capacity"
        );
        for tokens in [0, 21] {
            let err = FleetQuotaConfig::builder("f")
                .capacity(20)
                .fallback_capacity(tokens)
                .build();
            assert_eq!(
                err,
                Err(ConfigError::FallbackOutOfRange {
                    fallback_capacity: tokens,
                    capacity: 20
                })
            );
        }
        let config = FleetQuotaConfig::builder("f")
            .fallback_capacity(500)
            .lease_size(1)
            .build()
            .unwrap();
        assert_eq!(config.fallback_capacity(), 500);
        assert_eq!(config.low_water_mark(), 1);
    }

    #[test]
    fn fleet_names() {
        assert_eq!(name_problem(""), Some(FleetNameProblem::Empty));
        assert_eq!(name_problem(&"a".repeat(200)), None);
        assert_eq!(
            name_problem(&"a".repeat(201)),
            Some(FleetNameProblem::TooLong)
        );
        assert_eq!(
            name_problem(&"é".repeat(101)),
            Some(FleetNameProblem::TooLong)
        );
        assert_eq!(name_problem("a{b"), Some(FleetNameProblem::Brace));
        assert_eq!(name_problem("a}b"), Some(FleetNameProblem::Brace));
        assert_eq!(name_problem("{a}"), Some(FleetNameProblem::Brace));
        assert_eq!(
            name_problem("a\nb"),
            Some(FleetNameProblem::ControlCharacter)
        );
        assert_eq!(
            name_problem("a\u{7f}"),
            Some(FleetNameProblem::ControlCharacter)
        );
        assert_eq!(name_problem("\0"), Some(FleetNameProblem::ControlCharacter));
        assert_eq!(name_problem("checkout api/eu-west-1:prod"), None);
        assert_eq!(name_problem("ünïcödé"), None);
        let err = FleetQuotaConfig::builder("x{y").build().unwrap_err();
        assert!(err.to_string().contains("\"x{y\""), "{err}");
    }

    #[test]
    fn zero_capacity_and_lease_size() {
        let err = FleetQuotaConfig::builder("f").capacity(0).build();
        assert_eq!(err, Err(ConfigError::ZeroCapacity));
        let err = FleetQuotaConfig::builder("f").lease_size(0).build();
        assert_eq!(err, Err(ConfigError::ZeroLeaseSize));
        // A lease larger than the fleet is allowed: the store grants what there is.
        assert!(
            FleetQuotaConfig::builder("f")
                .capacity(10)
                .lease_size(50)
                .build()
                .is_ok()
        );
    }

    #[test]
    fn the_rate_period_must_be_positive_and_within_the_ttl() {
        let config = FleetQuotaConfig::builder("f").build().unwrap();
        assert_eq!(config.rate_period(), Duration::from_secs(1));
        let short = FleetQuotaConfig::builder("f")
            .lease_ttl(Duration::from_millis(900))
            .build()
            .unwrap();
        assert_eq!(short.rate_period(), Duration::from_millis(300));
        for period in [
            Duration::ZERO,
            Duration::from_secs(10),
            Duration::from_secs(11),
        ] {
            let err = FleetQuotaConfig::builder("f")
                .rate_period(period)
                .build()
                .unwrap_err();
            assert_eq!(
                err,
                ConfigError::RatePeriodOutOfRange {
                    rate_period: period,
                    lease_ttl: Duration::from_secs(10)
                }
            );
            assert!(err.to_string().contains("rate period"), "{err}");
        }
    }

    #[test]
    fn refresh_must_come_before_expiry() {
        let ttl = Duration::from_secs(3);
        for period in [ttl, ttl * 2] {
            let err = FleetQuotaConfig::builder("f")
                .lease_ttl(ttl)
                .refresh_period(period)
                .build()
                .unwrap_err();
            assert_eq!(
                err,
                ConfigError::RefreshNotBeforeExpiry {
                    refresh_period: period,
                    lease_ttl: ttl
                }
            );
            assert!(err.to_string().contains("lapse before it is refreshed"));
        }
        let config = FleetQuotaConfig::builder("f")
            .lease_ttl(ttl)
            .refresh_period(ttl - Duration::from_millis(1))
            .build()
            .unwrap();
        assert_eq!(config.refresh_period(), Duration::from_millis(2999));
        let err = FleetQuotaConfig::builder("f")
            .refresh_period(Duration::ZERO)
            .build();
        assert_eq!(err, Err(ConfigError::ZeroRefreshPeriod));
        // A 2 ms TTL is refreshed every 666 µs: above zero, below the TTL.
        let config = FleetQuotaConfig::builder("f")
            .lease_ttl(Duration::from_millis(2))
            .build()
            .unwrap();
        assert!(config.refresh_period() < config.lease_ttl());
    }

    #[test]
    fn ttl_and_timeouts() {
        for ttl in [
            Duration::ZERO,
            Duration::from_micros(999),
            MAX_LEASE_TTL + Duration::from_millis(1),
        ] {
            let err = FleetQuotaConfig::builder("f").lease_ttl(ttl).build();
            assert_eq!(err, Err(ConfigError::LeaseTtlOutOfRange(ttl)));
        }
        let config = FleetQuotaConfig::builder("f")
            .lease_ttl(MAX_LEASE_TTL)
            .build()
            .unwrap();
        assert_eq!(config.lease_ttl_ms(), 86_400_000);
        let err = FleetQuotaConfig::builder("f")
            .call_timeout(Duration::ZERO)
            .build();
        assert_eq!(err, Err(ConfigError::ZeroCallTimeout));
        let err = FleetQuotaConfig::builder("f")
            .connect_timeout(Duration::ZERO)
            .build();
        assert_eq!(err, Err(ConfigError::ZeroConnectTimeout));
    }
}
