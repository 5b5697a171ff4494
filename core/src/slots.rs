//! The details of a short text that a change of fact changes: its numbers,
//! days and months, names, negation, and words that announce a change.

use std::collections::BTreeSet;

/// Words that carry no subject (for overlap and for names at a sentence's start).
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "for", "from", "had", "has",
    "have", "he", "her", "his", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on",
    "or", "our", "she", "so", "that", "the", "their", "them", "then", "there", "these", "they",
    "this", "those", "to", "was", "we", "were", "will", "with", "you", "your", "s", "t", "what",
    "when", "where", "which", "who", "why", "how", "do", "does", "did", "also", "just",
];

/// Words that say something is no longer so.
pub(crate) const NEGATIONS: &[&str] =
    &["not", "no", "never", "none", "nobody", "nothing", "cannot", "without", "t"];

/// Words that announce a change.
const CHANGE_WORDS: &[&str] = &[
    "now",
    "moved",
    "changed",
    "switched",
    "instead",
    "replaced",
    "replaces",
    "anymore",
    "longer",
    "updated",
    "rescheduled",
    "became",
    "becomes",
    "new",
    "took",
    "takes",
    "renamed",
    "actually",
    "correction",
    "corrected",
    "revised",
    "upgraded",
    "downgraded",
    "raised",
    "lowered",
    "increased",
    "decreased",
    "reduced",
    "bumped",
    "extended",
    "shortened",
    "postponed",
    "delayed",
];

const WEEKDAYS: &[&str] =
    &["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The details of one text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Slots {
    /// Every word, lowercased, in order (for equality).
    pub words: Vec<String>,
    /// Words that carry substance (no stop words, numbers or days).
    pub content: BTreeSet<String>,
    /// Numbers, with their inner `.` and `:` (`9:30`, `1.2`, `16`).
    pub numbers: BTreeSet<String>,
    /// Days of the week and months.
    pub dates: BTreeSet<String>,
    /// Capitalised words that are not stop words, days or months, lowercased.
    pub names: BTreeSet<String>,
    /// Whether it says "not", "never", "n't", ...
    pub negated: bool,
    /// Whether it says "now", "moved", "instead", ...
    pub change_word: bool,
}

impl Slots {
    /// The details of `text`.
    pub fn of(text: &str) -> Slots {
        let mut slots = Slots::default();
        let chars: Vec<char> = text.chars().collect();
        let mut index = 0;
        while index < chars.len() {
            let c = chars[index];
            if c.is_ascii_digit() {
                let mut number = String::new();
                while index < chars.len()
                    && (chars[index].is_ascii_digit()
                        || (matches!(chars[index], '.' | ':' | ',')
                            && chars.get(index + 1).is_some_and(char::is_ascii_digit)))
                {
                    if chars[index] != ',' {
                        number.push(chars[index]);
                    }
                    index += 1;
                }
                slots.words.push(number.clone());
                slots.numbers.insert(number);
                continue;
            }
            if c.is_alphabetic() {
                let start = index;
                while index < chars.len() && chars[index].is_alphabetic() {
                    index += 1;
                }
                let word: String = chars[start..index].iter().collect();
                slots.add_word(&word);
                continue;
            }
            index += 1;
        }
        slots
    }

    fn add_word(&mut self, word: &str) {
        let lower = word.to_lowercase();
        let capitalised = word.chars().next().is_some_and(char::is_uppercase);
        self.negated |= NEGATIONS.contains(&lower.as_str());
        self.change_word |= CHANGE_WORDS.contains(&lower.as_str());
        // "On Thursdays" names the day as "on Thursday" does.
        let day = lower.strip_suffix('s').filter(|day| WEEKDAYS.contains(day));
        let is_date = day.is_some()
            || WEEKDAYS.contains(&lower.as_str())
            || (MONTHS.contains(&lower.as_str()) && (capitalised || lower != "may"));
        if is_date {
            self.dates.insert(day.unwrap_or(&lower).to_owned());
        } else if !STOP_WORDS.contains(&lower.as_str()) && !NEGATIONS.contains(&lower.as_str()) {
            if capitalised && !CHANGE_WORDS.contains(&lower.as_str()) {
                self.names.insert(lower.clone());
            }
            self.content.insert(lower.clone());
        }
        self.words.push(lower);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|item| (*item).to_owned()).collect()
    }

    #[test]
    fn details_of_texts() {
        let slots = Slots::of("Standup moved to 10:30 on Monday, 3 May; Bob isn't coming.");
        assert_eq!(slots.numbers, set(&["10:30", "3"]));
        assert_eq!(slots.dates, set(&["monday", "may"]));
        assert_eq!(slots.names, set(&["standup", "bob"]));
        assert!(slots.negated && slots.change_word);
        assert_eq!(Slots::of("PostgreSQL 16.2 on port 5,432").numbers, set(&["16.2", "5432"]));
        assert_eq!(Slots::of("you may go").dates, set(&[]));
        assert_eq!(Slots::of("Deploys happen on Thursdays.").dates, set(&["thursday"]));
        assert_eq!(Slots::of("Mays and Mondays").dates, set(&["monday"]));
        assert!(!Slots::of("The nightly build is green.").negated);
        assert_eq!(Slots::of("The nightly build").names, set(&[]));
    }
}
