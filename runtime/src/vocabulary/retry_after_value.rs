//! [`RetryAfterValue`]: what a `#[retry_after]` field holds, and how it
//! becomes a hint.

use core::time::Duration;
use std::time::SystemTime;

/// A field type `#[retry_after]` accepts, and how it becomes a hint.
///
/// The derive reads a `#[retry_after]` field through this trait, so any type
/// implementing it works — an alias, or your own newtype:
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::RetryAfterValue;
///
/// /// Milliseconds, as some services send them.
/// #[derive(Debug)]
/// struct Millis(u64);
///
/// impl RetryAfterValue for Millis {
///     fn to_retry_after(&self) -> Option<Duration> {
///         Some(Duration::from_millis(self.0))
///     }
/// }
///
/// assert_eq!(Millis(1500).to_retry_after(), Some(Duration::from_millis(1500)));
/// assert_eq!(Some(Millis(20)).to_retry_after(), Some(Duration::from_millis(20)));
/// ```
///
/// The rule, documented on the derive: a [`Duration`] is the hint itself; an
/// integer is a number of whole seconds, and a negative integer means "no
/// hint" (models use `-1` as "absent"); a `String` is an HTTP `Retry-After`
/// value (delta-seconds or an HTTP-date, RFC 9110), and one that
/// does not parse means "no hint"; a [`SystemTime`] asks to wait until then;
/// `Option::None` means "no hint".
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a `#[retry_after]` field",
    label = "not a retry-after value",
    note = "`#[retry_after]` takes `std::time::Duration`, whole seconds as `u16`, `u32`, `u64`, `i16`, `i32` or `i64`, a `String` (an HTTP `Retry-After` value), `std::time::SystemTime`, or an `Option` of one of these",
    note = "for a type of your own, implement `rebound::RetryAfterValue` for it"
)]
pub trait RetryAfterValue {
    /// The hint this field's value stands for.
    fn to_retry_after(&self) -> Option<Duration>;
}

impl RetryAfterValue for Duration {
    #[inline]
    fn to_retry_after(&self) -> Option<Duration> {
        Some(*self)
    }
}

macro_rules! unsigned_seconds {
    ($($int:ty),+) => {$(
        impl RetryAfterValue for $int {
            #[inline]
            fn to_retry_after(&self) -> Option<Duration> {
                Some(Duration::from_secs(u64::from(*self)))
            }
        }
    )+};
}

macro_rules! signed_seconds {
    ($($int:ty),+) => {$(
        impl RetryAfterValue for $int {
            #[inline]
            fn to_retry_after(&self) -> Option<Duration> {
                u64::try_from(*self).ok().map(Duration::from_secs)
            }
        }
    )+};
}

/// An HTTP `Retry-After` value: delta-seconds, or an HTTP-date (the wait is
/// until then, from the system clock's now; dates need the `httpdate`
/// feature, without it they are no hint).
impl RetryAfterValue for String {
    #[inline]
    fn to_retry_after(&self) -> Option<Duration> {
        super::retry_after_header::parse_retry_after(self, SystemTime::now())
    }
}

/// The time to wait until: from the system clock's now (zero if past).
impl RetryAfterValue for SystemTime {
    #[inline]
    fn to_retry_after(&self) -> Option<Duration> {
        Some(
            self.duration_since(SystemTime::now())
                .unwrap_or(Duration::ZERO),
        )
    }
}

unsigned_seconds!(u16, u32, u64);
signed_seconds!(i16, i32, i64);

impl<T: RetryAfterValue> RetryAfterValue for Option<T> {
    #[inline]
    fn to_retry_after(&self) -> Option<Duration> {
        self.as_ref().and_then(T::to_retry_after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_whole_seconds_and_negative_means_none() {
        assert_eq!(5_u64.to_retry_after(), Some(Duration::from_secs(5)));
        assert_eq!(0_i32.to_retry_after(), Some(Duration::ZERO));
        assert_eq!((-1_i32).to_retry_after(), None);
        assert_eq!(Some(-7_i64).to_retry_after(), None);
        assert_eq!(Some(3_i32).to_retry_after(), Some(Duration::from_secs(3)));
        assert_eq!(None::<u64>.to_retry_after(), None);
        assert_eq!(
            String::from("12").to_retry_after(),
            Some(Duration::from_secs(12))
        );
        assert_eq!(Some(String::from("later")).to_retry_after(), None);
        assert_eq!(None::<String>.to_retry_after(), None);
        assert_eq!(
            SystemTime::UNIX_EPOCH.to_retry_after(),
            Some(Duration::ZERO)
        );
        let d = Duration::from_millis(1500);
        assert_eq!(d.to_retry_after(), Some(d));
        assert_eq!(Some(d).to_retry_after(), Some(d));
    }
}
