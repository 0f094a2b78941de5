//! claude's models narrowed to those the gateway listed ([`super::listing`]), matched as the
//! TypeScript adapter matches them: a model matches when its resolved id (or its value, for a
//! model claude gives none) names a listed id in any spelling (`claude-sonnet-5[1m]` matches a
//! listed `claude-sonnet-5-20260101`, `eu.anthropic.claude-sonnet-5` a listed
//! `eu.anthropic.claude-sonnet-5-v1:0`).

use super::listing::{Listed, bedrock_region_prefix};
use crate::claude::wire::ModelInfo;

/// The aliases that stand for a whole family of models.
const FAMILY_ALIASES: &[&str] = &["opus", "sonnet", "haiku", "fable"];

/// The models of `models` the gateway serves. With a Bedrock region prefix, a model resolved
/// under another prefix is dropped (claude would call it in the other region). A model without
/// a resolved id is known only by its alias: `default` is kept, a family alias when a model of
/// its family is listed. When no model matches by its id, the gateway serves none of claude's
/// models and nothing is left.
pub(crate) fn narrow(models: &[ModelInfo], listed: &Listed) -> Vec<ModelInfo> {
    let ids: Vec<String> = listed
        .ids
        .iter()
        .map(|id| normalized(id))
        .filter(|id| !id.is_empty())
        .collect();
    let is_listed = |model: &ModelInfo| ids.contains(&normalized(model_id(model)));
    let narrowed: Vec<ModelInfo> = models
        .iter()
        .filter(|model| {
            let prefix = bedrock_region_prefix(model_id(model));
            if let (Some(wanted), Some(prefix)) = (&listed.region_prefix, prefix)
                && wanted != prefix
            {
                return false;
            }
            if is_listed(model) {
                return true;
            }
            if model.resolved_model.is_some() {
                return false;
            }
            let alias = normalized(&model.value);
            alias == "default"
                || (FAMILY_ALIASES.contains(&alias.as_str())
                    && ids.iter().any(|id| id.contains(&format!("-{alias}"))))
        })
        .cloned()
        .collect();
    if narrowed.iter().any(is_listed) {
        narrowed
    } else {
        Vec::new()
    }
}

fn model_id(model: &ModelInfo) -> &str {
    model.resolved_model.as_deref().unwrap_or(&model.value)
}

/// A model id without what only spells the same model differently: the provider prefix
/// (`eu.anthropic.`, `anthropic/`), a `:variant`, dots between digits, an `@` version, a Bedrock
/// `-v1:0`, `-fast`, a date, a context hint (`[1m]`, `-1m`).
fn normalized(value: &str) -> String {
    let mut id = without_context_hints(&value.trim().to_lowercase());
    if let Some(at) = id.rfind("anthropic.") {
        id = id[at + "anthropic.".len()..].to_owned();
    }
    if let Some(rest) = id.strip_prefix("anthropic/") {
        id = rest.to_owned();
    }
    // `:batch`, `:free`: a letter follows the colon (Bedrock's `-v1:0` is handled below).
    if let Some(colon) = id.rfind(':')
        && id[colon + 1..].starts_with(|c: char| c.is_ascii_lowercase())
        && id[colon + 1..]
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        id.truncate(colon);
    }
    id = dots_between_digits_as_dashes(&id);
    if let Some(at) = id.find('@') {
        id.truncate(at);
    }
    id = without_version_suffix(&id);
    if let Some(rest) = id.strip_suffix("-fast") {
        id = rest.to_owned();
    }
    if let Some((rest, date)) = id.rsplit_once('-')
        && date.len() == 8
        && date.bytes().all(|b| b.is_ascii_digit())
    {
        id = rest.to_owned();
    }
    id
}

/// Without `[1m]` anywhere and a trailing `-1m`.
fn without_context_hints(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    let mut rest = id;
    while let Some(open) = rest.find('[') {
        let hint = rest[open + 1..]
            .find(']')
            .map(|close| &rest[open + 1..open + 1 + close]);
        match hint {
            Some(hint) if is_context_size(hint) => {
                out.push_str(&rest[..open]);
                rest = &rest[open + hint.len() + 2..];
            }
            _ => {
                out.push_str(&rest[..=open]);
                rest = &rest[open + 1..];
            }
        }
    }
    out.push_str(rest);
    if let Some((head, size)) = out.rsplit_once('-')
        && is_context_size(size)
    {
        return head.to_owned();
    }
    out
}

/// `1m`, `200m`: digits then `m`.
fn is_context_size(text: &str) -> bool {
    text.strip_suffix('m')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn dots_between_digits_as_dashes(id: &str) -> String {
    let bytes = id.as_bytes();
    id.char_indices()
        .map(|(i, c)| {
            let between_digits = c == '.'
                && i > 0
                && bytes[i - 1].is_ascii_digit()
                && bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
            if between_digits { '-' } else { c }
        })
        .collect()
}

/// Without a trailing `-v1` or `-v1:0`.
fn without_version_suffix(id: &str) -> String {
    if let Some(at) = id.rfind("-v") {
        let version = &id[at + 2..];
        let (major, minor) = version.split_once(':').unwrap_or((version, "0"));
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if digits(major) && digits(minor) {
            return id[..at].to_owned();
        }
    }
    id.to_owned()
}

#[cfg(test)]
mod tests;
