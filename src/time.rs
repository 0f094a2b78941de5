//! RFC 3339 timestamps from file times, without a date-time dependency.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, as [`rfc3339`] writes it.
pub fn now_rfc3339() -> String {
    rfc3339(SystemTime::now())
}

/// `2026-12-02T12:15:09.544Z` (UTC, milliseconds). Times before 1970 are clamped to the epoch.
pub(crate) fn rfc3339(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        since.subsec_millis()
    )
}

/// Days since 1970-01-01 -> (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        // 2000-02-29 (a leap day) 23:59:59.5
        let leap = UNIX_EPOCH + Duration::from_millis(951_868_799_500);
        assert_eq!(rfc3339(leap), "2000-02-29T23:59:59.500Z");
        // The fixture transcript's last timestamp, from its sentAtMs.
        let fixture = UNIX_EPOCH + Duration::from_millis(1_796_213_709_420);
        assert_eq!(rfc3339(fixture), "2026-12-02T12:15:09.420Z");
    }
}
