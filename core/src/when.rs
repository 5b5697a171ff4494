//! The dates a question names — "on 8 May, 2023", "in August 2022", "the
//! week before July 24", "last week", "two days ago" — as a window of time
//! to match memories' times against. Relative dates count from `now`,
//! which the caller passes in; all dates are UTC days.
//!
//! Only what reads as a date counts: a month name needs a day, a year or a
//! preposition beside it ("may" alone is a verb), a year needs a month or a
//! preposition ("in 2023", not "2023 users").

use std::sync::LazyLock;

use chrono::{Datelike, Days, Months, NaiveDate};
use regex::{Captures, Regex};

use crate::Timestamp;

/// A span of time a query names: `start` inclusive, `end` exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// The first instant of the span.
    pub start: Timestamp,
    /// The first instant after it.
    pub end: Timestamp,
}

const MONTH: &str = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?";
const ORDINAL: &str = r"(?:st|nd|rd|th)?";

/// Each way of naming a date, most specific first; a later pattern does
/// not read text an earlier one took.
static PATTERNS: LazyLock<Vec<(Kind, Regex)>> = LazyLock::new(|| {
    let pattern = |kind: Kind, text: String| {
        (kind, Regex::new(&format!("(?i){text}")).expect("date patterns are valid"))
    };
    vec![
        pattern(Kind::Iso, r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b".to_owned()),
        pattern(
            Kind::DayMonth,
            format!(r"\b(\d{{1,2}}){ORDINAL}\s+(?:of\s+)?{MONTH},?(?:\s*(\d{{4}})\b)?"),
        ),
        pattern(
            Kind::MonthDay,
            format!(r"\b{MONTH}\s+(\d{{1,2}}){ORDINAL}\b(?:,?\s*(\d{{4}})\b)?"),
        ),
        pattern(Kind::MonthYear, format!(r"\b{MONTH},?\s+(?:of\s+)?(\d{{4}})\b")),
        pattern(
            Kind::Month,
            format!(
                r"\b(in|during|since|last|this|next|early|late|mid|until|by|before|after|of|throughout)[\s-]+(?:early\s+|late\s+|mid-?)?{MONTH}\b"
            ),
        ),
        pattern(
            Kind::Year,
            r"\b(?:in|during|since|of|by|before|after|from|until|throughout)\s+((?:19|20)\d{2})\b"
                .to_owned(),
        ),
        pattern(Kind::Yesterday, r"\byesterday\b".to_owned()),
        pattern(Kind::Today, r"\btoday\b".to_owned()),
        pattern(
            Kind::LastUnit,
            r"\b(last|this|past|previous)\s+(week|weekend|month|year)\b".to_owned(),
        ),
        pattern(
            Kind::Ago,
            r"\b(\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|several)\s+(day|week|month|year)s?\s+ago\b".to_owned(),
        ),
    ]
});

/// Text just before a date that moves the window next to it: "the week
/// before", "the day after", "the Monday before".
static SHIFT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(day|days|week|weekend|night|evening|morning|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\s+(before|after)\s+(?:on\s+|the\s+)?$",
    )
    .expect("the shift pattern is valid")
});

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Iso,
    DayMonth,
    MonthDay,
    MonthYear,
    Month,
    Year,
    Yesterday,
    Today,
    LastUnit,
    Ago,
}

/// The span of time `query` names, if it names one: the smallest window
/// holding every date it names (each a day, a month or a year), each moved
/// by "the week before" and the like.
pub fn named_window(query: &str, now: Timestamp) -> Option<Window> {
    let today = date_of(now)?;
    let mut taken: Vec<(usize, usize)> = Vec::new();
    let mut window: Option<(NaiveDate, NaiveDate)> = None;
    for (kind, pattern) in PATTERNS.iter() {
        for captures in pattern.captures_iter(query) {
            let whole = captures.get(0).expect("a match has a whole");
            if taken.iter().any(|&(start, end)| whole.start() < end && start < whole.end()) {
                continue;
            }
            // Text read as a date is taken even when it names no real day
            // ("31 February 2023" is not February 2023).
            taken.push((whole.start(), whole.end()));
            let Some((mut start, mut end)) = span(*kind, &captures, today) else { continue };
            if let Some(shift) = SHIFT.captures(&query[..whole.start()]) {
                let days = if shift[1].eq_ignore_ascii_case("day") { 1 } else { 7 };
                (start, end) = if shift[2].eq_ignore_ascii_case("before") {
                    (start.checked_sub_days(Days::new(days))?, start)
                } else {
                    (end, end.checked_add_days(Days::new(days))?)
                };
            }
            window = Some(match window {
                None => (start, end),
                Some((first, last)) => (first.min(start), last.max(end)),
            });
        }
    }
    let (start, end) = window?;
    Some(Window { start: instant(start)?, end: instant(end)? })
}

fn date_of(time: Timestamp) -> Option<NaiveDate> {
    chrono::DateTime::from_timestamp_millis(time.0).map(|time| time.date_naive())
}

fn instant(date: NaiveDate) -> Option<Timestamp> {
    Some(Timestamp(date.and_hms_opt(0, 0, 0)?.and_utc().timestamp_millis()))
}

fn month_number(name: &str) -> Option<u32> {
    let name = name.to_ascii_lowercase();
    let position =
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
            .iter()
            .position(|prefix| name.starts_with(prefix))?;
    u32::try_from(position + 1).ok()
}

fn number(captures: &Captures<'_>, group: usize) -> Option<i32> {
    captures.get(group)?.as_str().parse().ok()
}

/// The day `day` of `month`: of `year` when given, else the latest one not
/// after `today`.
fn day_in(year: Option<i32>, month: u32, day: u32, today: NaiveDate) -> Option<NaiveDate> {
    match year {
        Some(year) => NaiveDate::from_ymd_opt(year, month, day),
        None => NaiveDate::from_ymd_opt(today.year(), month, day)
            .filter(|date| *date <= today)
            .or_else(|| NaiveDate::from_ymd_opt(today.year() - 1, month, day)),
    }
}

fn month_span(first: NaiveDate) -> Option<(NaiveDate, NaiveDate)> {
    Some((first, first.checked_add_months(Months::new(1))?))
}

fn day_span(day: NaiveDate) -> Option<(NaiveDate, NaiveDate)> {
    Some((day, day.succ_opt()?))
}

fn span(kind: Kind, captures: &Captures<'_>, today: NaiveDate) -> Option<(NaiveDate, NaiveDate)> {
    match kind {
        Kind::Iso => {
            let (year, month, day) =
                (number(captures, 1)?, number(captures, 2)?, number(captures, 3)?);
            day_span(NaiveDate::from_ymd_opt(
                year,
                u32::try_from(month).ok()?,
                u32::try_from(day).ok()?,
            )?)
        }
        Kind::DayMonth | Kind::MonthDay => {
            let (day_group, month_group) = if kind == Kind::DayMonth { (1, 2) } else { (2, 1) };
            let day = u32::try_from(number(captures, day_group)?).ok()?;
            let month = month_number(&captures[month_group])?;
            day_span(day_in(number(captures, 3), month, day, today)?)
        }
        Kind::MonthYear => {
            let month = month_number(&captures[1])?;
            month_span(NaiveDate::from_ymd_opt(number(captures, 2)?, month, 1)?)
        }
        Kind::Month => {
            let month = month_number(&captures[2])?;
            let this_year = NaiveDate::from_ymd_opt(today.year(), month, 1)?;
            let first = match captures[1].to_ascii_lowercase().as_str() {
                "next" if this_year <= today => this_year.checked_add_months(Months::new(12))?,
                "next" | "this" => this_year,
                // "last May" in May is a year ago; "in May" in May is now.
                "last" if this_year.month() >= today.month() => {
                    this_year.checked_sub_months(Months::new(12))?
                }
                _ if this_year > today => this_year.checked_sub_months(Months::new(12))?,
                _ => this_year,
            };
            month_span(first)
        }
        Kind::Year => {
            let year = number(captures, 1)?;
            Some((NaiveDate::from_ymd_opt(year, 1, 1)?, NaiveDate::from_ymd_opt(year + 1, 1, 1)?))
        }
        Kind::Yesterday => day_span(today.pred_opt()?),
        Kind::Today => day_span(today),
        Kind::LastUnit => {
            let this = captures[1].eq_ignore_ascii_case("this");
            match captures[2].to_ascii_lowercase().as_str() {
                "week" | "weekend" => {
                    let monday = today.checked_sub_days(Days::new(u64::from(
                        today.weekday().num_days_from_monday(),
                    )))?;
                    let start =
                        if this { monday } else { monday.checked_sub_days(Days::new(7))? };
                    Some((start, start.checked_add_days(Days::new(7))?))
                }
                "month" => {
                    let first = today.with_day(1)?;
                    month_span(if this {
                        first
                    } else {
                        first.checked_sub_months(Months::new(1))?
                    })
                }
                _ => {
                    let year = if this { today.year() } else { today.year() - 1 };
                    Some((
                        NaiveDate::from_ymd_opt(year, 1, 1)?,
                        NaiveDate::from_ymd_opt(year + 1, 1, 1)?,
                    ))
                }
            }
        }
        Kind::Ago => {
            let count: u32 = match captures[1].to_ascii_lowercase().as_str() {
                "a" | "an" | "one" => 1,
                "two" | "a couple of" => 2,
                "three" | "a few" | "several" => 3,
                "four" => 4,
                "five" => 5,
                "six" => 6,
                "seven" => 7,
                "eight" => 8,
                "nine" => 9,
                "ten" => 10,
                digits => digits.parse().ok()?,
            };
            // The day it names, give or take one of its units.
            let (back, unit) = match captures[2].to_ascii_lowercase().as_str() {
                "day" => (Days::new(u64::from(count)), Days::new(1)),
                "week" => (Days::new(7 * u64::from(count)), Days::new(7)),
                "month" => (Days::new(30 * u64::from(count)), Days::new(30)),
                _ => (Days::new(365 * u64::from(count)), Days::new(365)),
            };
            let day = today.checked_sub_days(back)?;
            Some((day.checked_sub_days(unit)?, day.checked_add_days(unit)?.min(today.succ_opt()?)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-11-24 (a Tuesday), noon UTC.
    const NOW: Timestamp = Timestamp(1_795_521_600_000);

    fn window(query: &str) -> Option<(String, String)> {
        named_window(query, NOW).map(|window| {
            let day = |time: Timestamp| date_of(time).expect("a valid time").to_string();
            (day(window.start), day(window.end))
        })
    }

    fn span(start: &str, end: &str) -> Option<(String, String)> {
        Some((start.to_owned(), end.to_owned()))
    }

    #[test]
    fn now_is_the_day_the_tests_say() {
        assert_eq!(date_of(NOW).map(|day| day.to_string()), Some("2026-11-24".to_owned()));
    }

    #[test]
    fn absolute_dates_name_their_day_month_or_year() {
        let cases = [
            (
                "What did John organize with his friends on May 8, 2022?",
                span("2022-05-08", "2022-05-09"),
            ),
            ("What dish did Sam make on 18 August, 2023?", span("2023-08-18", "2023-08-19")),
            (
                "Where did Dave come back from on 1st September 2023?",
                span("2023-09-01", "2023-09-02"),
            ),
            ("the forest picture shared on December 1,2023", span("2023-12-01", "2023-12-02")),
            ("Which places was Evan visiting in July 2023?", span("2023-07-01", "2023-08-01")),
            ("What setback did Melanie face in October 2023?", span("2023-10-01", "2023-11-01")),
            ("What incidents does Evan face in 2023?", span("2023-01-01", "2024-01-01")),
            ("deploy notes from 2025-03-07", span("2025-03-07", "2025-03-08")),
            ("the 4th of July, 2024 outage", span("2024-07-04", "2024-07-05")),
        ];
        for (query, expected) in cases {
            assert_eq!(window(query), expected, "{query}");
        }
    }

    #[test]
    fn dates_without_a_year_are_the_latest_not_after_now() {
        assert_eq!(window("what happened on March 3?"), span("2026-03-03", "2026-03-04"));
        assert_eq!(window("what happened on December 3?"), span("2025-12-03", "2025-12-04"));
        assert_eq!(window("the release in May"), span("2026-05-01", "2026-06-01"));
        assert_eq!(window("the offsite last November"), span("2025-11-01", "2025-12-01"));
        assert_eq!(window("plans for next March"), span("2027-03-01", "2027-04-01"));
    }

    #[test]
    fn relative_dates_count_from_now() {
        assert_eq!(window("what broke yesterday?"), span("2026-11-23", "2026-11-24"));
        assert_eq!(window("what did we decide today"), span("2026-11-24", "2026-11-25"));
        assert_eq!(window("the incident last week"), span("2026-11-16", "2026-11-23"));
        assert_eq!(window("bugs fixed this month"), span("2026-11-01", "2026-12-01"));
        assert_eq!(window("hires last year"), span("2025-01-01", "2026-01-01"));
        assert_eq!(window("the call two weeks ago"), span("2026-11-03", "2026-11-17"));
        assert_eq!(window("the crash 3 days ago"), span("2026-11-20", "2026-11-22"));
    }

    #[test]
    fn before_and_after_move_the_window() {
        assert_eq!(
            window("What did John do the week before August 3, 2023?"),
            span("2023-07-27", "2023-08-03")
        );
        assert_eq!(
            window("What did Andrew do on the Monday before July 24, 2023?"),
            span("2023-07-17", "2023-07-24")
        );
        assert_eq!(window("the day after 2024-02-28"), span("2024-02-29", "2024-03-01"));
    }

    #[test]
    fn several_dates_give_the_span_holding_them() {
        assert_eq!(
            window("between 2 March 2023 and 10 April 2023"),
            span("2023-03-02", "2023-04-11")
        );
    }

    #[test]
    fn words_that_only_look_like_dates_name_none() {
        for query in [
            "May I deploy on a Friday?",
            "you may want to restart the worker",
            "we have 2023 users",
            "mar the surface",
            "port 8080 on the api server",
            "what did we decide",
            "version 2.4 since the upgrade",
            "on 31 February 2023",
        ] {
            assert_eq!(window(query), None, "{query}");
        }
    }
}
