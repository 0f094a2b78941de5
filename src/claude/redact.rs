//! Making claude's output safe to log: secrets masked, long lines cut.

/// The prefix of Anthropic API keys and OAuth tokens (`sk-ant-api03-...`, `sk-ant-oat01-...`).
const KEY_PREFIX: &str = "sk-ant-";

/// `text` with every `sk-ant-...` key replaced by `sk-ant-[REDACTED]` and every e-mail address
/// (claude prints the account's) by `[EMAIL]`. Applying it twice changes nothing more.
pub(crate) fn redact_secrets(text: &str) -> String {
    redact_emails(&redact_keys(text))
}

fn redact_keys(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(KEY_PREFIX) {
        out.push_str(&rest[..at]);
        out.push_str(KEY_PREFIX);
        out.push_str("[REDACTED]");
        let after = &rest[at + KEY_PREFIX.len()..];
        let after = after.strip_prefix("[REDACTED]").unwrap_or(after);
        let key_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .unwrap_or(after.len());
        rest = &after[key_len..];
    }
    out.push_str(rest);
    out
}

fn redact_emails(text: &str) -> String {
    let local = |c: char| c.is_ascii_alphanumeric() || "._%+-".contains(c);
    let domain = |c: char| c.is_ascii_alphanumeric() || c == '.' || c == '-';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('@') {
        // Just past the last character that cannot be in an address, which may be several bytes.
        let start = rest[..at]
            .char_indices()
            .rfind(|&(_, c)| !local(c))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let after = &rest[at + 1..];
        let end = after.find(|c: char| !domain(c)).unwrap_or(after.len());
        let host = after[..end].trim_end_matches('.');
        if start < at && host.contains('.') && !host.starts_with('.') {
            out.push_str(&rest[..start]);
            out.push_str("[EMAIL]");
            rest = &after[host.len()..];
        } else {
            out.push_str(&rest[..=at]);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// A log-safe excerpt: at most `max` bytes (cut at a char boundary), secrets redacted, and the full
/// length named when cut so a reader knows the line was longer.
pub(crate) fn log_excerpt(text: &str, max: usize) -> String {
    excerpt_of(text, text.len(), max)
}

/// [`log_excerpt`] of a text of `len` bytes of which only the start, `text`, is at hand.
pub(crate) fn excerpt_of(text: &str, len: usize, max: usize) -> String {
    if len <= max && text.len() == len {
        return redact_secrets(text);
    }
    // Cut a little past `max` before redacting so a key straddling the cut is still recognised.
    let mut end = (max + 128).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let redacted = redact_secrets(&text[..end]);
    let mut cut = max.min(redacted.len());
    while !redacted.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}... ({len} bytes)", &redacted[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn email_addresses_are_masked_but_not_other_at_signs() {
        assert_eq!(
            redact_secrets("logged in as ada.lovelace@example.com."),
            "logged in as [EMAIL]."
        );
        assert_eq!(
            redact_secrets("npm i @anthropic-ai/claude-code"),
            "npm i @anthropic-ai/claude-code"
        );
        assert_eq!(redact_secrets("user@localhost"), "user@localhost");
        // Found by `cargo fuzz run claude_stdout`: a multi-byte character right before the address
        // panicked (the log of a line of claude's took the adapter's reader down).
        assert_eq!(
            redact_secrets("from �ada@example.com and é bob@example.org"),
            "from �[EMAIL] and é [EMAIL]"
        );
    }

    #[test]
    fn keys_are_masked_wherever_they_appear() {
        let line = "auth failed for sk-ant-api03-AbC_d-9 (key sk-ant-oat01-x), retry";
        let safe = redact_secrets(line);
        assert_eq!(
            safe,
            "auth failed for sk-ant-[REDACTED] (key sk-ant-[REDACTED]), retry"
        );
        assert_eq!(redact_secrets("no secret here"), "no secret here");
        assert_eq!(
            redact_secrets(&safe),
            safe,
            "redacting twice changes nothing"
        );
        assert_eq!(
            redact_secrets("ends with sk-ant-"),
            "ends with sk-ant-[REDACTED]"
        );
    }

    #[test]
    fn excerpts_are_cut_and_redacted() {
        let long = format!("{}sk-ant-api03-{}", "a".repeat(190), "Z".repeat(100));
        let safe = log_excerpt(&long, 200);
        assert!(!safe.contains("ZZ"), "{safe}");
        assert!(
            safe.ends_with(&format!("... ({} bytes)", long.len())),
            "{safe}"
        );
        assert_eq!(log_excerpt("short", 200), "short");
        // A cut inside a multi-byte char must not panic.
        assert!(log_excerpt(&"é".repeat(300), 201).starts_with('é'));
    }
}
