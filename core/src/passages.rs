//! Passages: what of a longer memory is embedded besides its whole text.
//!
//! One vector for a text of several sentences averages them, and a question
//! about one of the sentences finds it weakly. So a memory of two or more
//! sentences is also embedded sentence by sentence, and dense search scores
//! it by its best vector. A sentence on its own loses what it is about ("It
//! restarts nightly."), so every passage after the first carries the
//! memory's opening words, which usually name its subject.
//!
//! Measured on LoCoMo with the lab in `examples/retrieval_lab.rs`: dense
//! R@5 0.457 → 0.537 over the same turns, and fused with BM25 0.656 → 0.678.

/// Opening words of the memory every later passage carries.
pub const LEAD_WORDS: usize = 8;
/// Most passages one memory gets; longer texts group their sentences.
pub const MAX_PASSAGES: usize = 16;
/// Sentences shorter than this many words join a neighbour ("Wow!").
const MIN_WORDS: usize = 3;

/// The passages of `text` to embed besides the text itself: none for a
/// text of one sentence, else one per sentence (short ones joined to a
/// neighbour), later ones led by the text's first [`LEAD_WORDS`] words.
pub fn passages(text: &str) -> Vec<String> {
    let mut sentences: Vec<String> = Vec::new();
    for sentence in split_sentences(text) {
        let short = |words: &str| words.split_whitespace().count() < MIN_WORDS;
        match sentences.last_mut() {
            Some(last) if short(sentence) || short(last) => {
                last.push(' ');
                last.push_str(sentence);
            }
            _ => sentences.push(sentence.to_owned()),
        }
    }
    if sentences.len() < 2 {
        return Vec::new();
    }
    if sentences.len() > MAX_PASSAGES {
        let per_group = sentences.len().div_ceil(MAX_PASSAGES);
        sentences = sentences.chunks(per_group).map(|group| group.join(" ")).collect();
    }
    let lead: Vec<&str> = text.split_whitespace().take(LEAD_WORDS).collect();
    let lead = lead.join(" ");
    let mut passages = Vec::with_capacity(sentences.len());
    let mut sentences = sentences.into_iter();
    passages.extend(sentences.next());
    passages.extend(sentences.map(|sentence| format!("{lead} … {sentence}")));
    passages
}

/// Everything of `text` to embed, whole text first, then its passages.
pub fn texts_to_embed(text: &str) -> Vec<String> {
    let mut texts = vec![text.to_owned()];
    texts.extend(passages(text));
    texts
}

/// Sentences of `text`: split after `.`, `!` or `?` followed by white
/// space, and at line breaks; trimmed, empty ones dropped.
fn split_sentences(text: &str) -> Vec<&str> {
    let mut sentences = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next_is_space = chars.peek().is_some_and(|(_, next)| next.is_whitespace());
        let end = match c {
            '\n' => Some(at),
            '.' | '!' | '?' if next_is_space => Some(at + c.len_utf8()),
            _ => None,
        };
        if let Some(end) = end {
            let sentence = text[start..end].trim();
            if !sentence.is_empty() {
                sentences.push(sentence);
            }
            start = end;
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        sentences.push(rest);
    }
    sentences
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_sentence_has_no_passages() {
        for text in ["", "   ", "The api-server listens on 8080.", "no stop at all", "v1.2 is out"]
        {
            assert!(passages(text).is_empty(), "{text:?}");
        }
    }

    #[test]
    fn later_sentences_carry_the_opening_words() {
        let text = "The api-server behind the gateway listens on 8080. It restarts every night \
                    at three. Logs go to Loki.";
        assert_eq!(
            passages(text),
            [
                "The api-server behind the gateway listens on 8080.",
                "The api-server behind the gateway listens on 8080. … It restarts every night \
                 at three.",
                "The api-server behind the gateway listens on 8080. … Logs go to Loki.",
            ]
        );
    }

    #[test]
    fn short_sentences_join_a_neighbour() {
        assert!(passages("Wow! That is great news for us.").is_empty());
        let found = passages("Thanks, Mel! My goal is a loving home. Here it is!");
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0], "Thanks, Mel! My goal is a loving home.");
        assert!(found[1].ends_with("… Here it is!"), "{found:?}");
    }

    #[test]
    fn line_breaks_split_and_decimals_do_not() {
        let found =
            passages("Upgraded postgres to 16.2 on the server\nBackups run from cron daily");
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0], "Upgraded postgres to 16.2 on the server");
    }

    #[test]
    fn long_texts_are_grouped_into_at_most_the_cap() {
        let text: String =
            (0..50).map(|index| format!("Sentence number {index} is here. ")).collect();
        let found = passages(&text);
        assert!(found.len() <= MAX_PASSAGES && found.len() > MAX_PASSAGES / 2, "{}", found.len());
        // Every sentence is in some passage.
        for index in 0..50 {
            let needle = format!("number {index} is");
            assert!(found.iter().any(|passage| passage.contains(&needle)), "{index}");
        }
    }

    #[test]
    fn multibyte_text_splits_on_char_boundaries() {
        let found = passages("Ça marche très bien ici. Où est l'hôtel près de la gare?");
        assert_eq!(found.len(), 2, "{found:?}");
    }
}
