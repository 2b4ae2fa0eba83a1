//! Finding a symbol by the name a person writes, and the error that says what was meant.

use super::demangle::{normalize, NameKeys};
use super::Symbol;

/// Why [`SymbolTable::find`](super::SymbolTable::find) found no single symbol.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    /// No symbol has that name; `candidates` are close names (possibly empty).
    #[error("no symbol named `{query}`{}", list("did you mean", candidates))]
    NotFound {
        /// The name asked for.
        query: String,
        /// Names close to the query, shown as signatures where demangled.
        candidates: Vec<String>,
    },
    /// Several symbols have that name.
    #[error("`{query}` is ambiguous{}", list("candidates", candidates))]
    Ambiguous {
        /// The name asked for.
        query: String,
        /// The symbols it could mean, shown as signatures where demangled.
        candidates: Vec<String>,
    },
}

impl LookupError {
    /// The candidates the error lists.
    pub fn candidates(&self) -> &[String] {
        match self {
            LookupError::NotFound { candidates, .. }
            | LookupError::Ambiguous { candidates, .. } => candidates,
        }
    }
}

fn list(heading: &str, names: &[String]) -> String {
    if names.is_empty() {
        String::new()
    } else {
        format!("; {heading}: {}", names.join(", "))
    }
}

/// Finds the one symbol among those `accept` admits that `query` names.
pub(crate) fn find<'a>(
    all: &'a [Symbol],
    query: &str,
    accept: impl Fn(&Symbol) -> bool,
) -> Result<&'a Symbol, LookupError> {
    let symbols: Vec<&Symbol> = all.iter().filter(|s| accept(s)).collect();
    if let Some(s) = symbols.iter().find(|s| s.name == query) {
        return Ok(s);
    }
    let key = normalize(query);
    // A mangled name spells its own identifier, so only symbols whose raw name contains the
    // query's identifier need demangling; the rest are tried only when none of those match
    // (operators and other special names do not spell it).
    if let Some(word) = base_identifier(&key) {
        let narrowed: Vec<&Symbol> = symbols
            .iter()
            .copied()
            .filter(|s| s.name.contains(word))
            .collect();
        if let Some(found) = match_levels(&narrowed, &key, query)? {
            return Ok(found);
        }
    }
    if let Some(found) = match_levels(&symbols, &key, query)? {
        return Ok(found);
    }
    let keys: Vec<NameKeys> = symbols.iter().map(|s| NameKeys::of(&s.name)).collect();
    Err(LookupError::NotFound {
        query: query.to_string(),
        candidates: close_names(&symbols, &keys, &key),
    })
}

/// The identifier a query key ends its name with (`bar` for `ns::Foo<int>::bar(int)`), if it is
/// an ordinary one.
fn base_identifier(key: &str) -> Option<&str> {
    let name = key.split('(').next().unwrap_or(key);
    let mut depth = 0usize;
    let mut end = name.len();
    for (i, c) in name.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' => depth = depth.saturating_sub(1),
            _ if depth == 0 => {
                end = i + c.len_utf8();
                break;
            }
            _ => {}
        }
    }
    let name = &name[..end];
    let start = name
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .map_or(0, |i| i + 1);
    let word = &name[start..];
    (!word.is_empty() && !word.starts_with("operator")).then_some(word)
}

/// The lookup levels, most specific first; the first level with any match decides.
fn match_levels<'a>(
    symbols: &[&'a Symbol],
    key: &str,
    query: &str,
) -> Result<Option<&'a Symbol>, LookupError> {
    let keys: Vec<NameKeys> = symbols.iter().map(|s| NameKeys::of(&s.name)).collect();
    let levels: [&dyn Fn(&NameKeys) -> bool; 3] = [
        &|k| k.signatures.iter().any(|sig| same_signature(key, sig)),
        &|k| k.templated.as_deref() == Some(key),
        &|k| k.qualified_matches(key),
    ];
    for matches in levels {
        let found: Vec<&Symbol> = symbols
            .iter()
            .zip(&keys)
            .filter(|(_, k)| matches(k))
            .map(|(s, _)| *s)
            .collect();
        match found.as_slice() {
            [] => continue,
            [one] => return Ok(Some(one)),
            many => {
                return Err(LookupError::Ambiguous {
                    query: query.to_string(),
                    candidates: many.iter().map(|s| s.display_name().to_string()).collect(),
                })
            }
        }
    }
    Ok(None)
}

/// Whether a query key names a signature key, allowing a return type before it (only template
/// instances encode their return type in the mangled name).
fn same_signature(query: &str, signature: &str) -> bool {
    query == signature
        || query
            .strip_suffix(signature)
            .is_some_and(|head| head.ends_with([' ', '*', '&', '>']))
}

/// Symbols whose plain name is within a few edits of the query's plain name, or contains it.
fn close_names(symbols: &[&Symbol], keys: &[NameKeys], key: &str) -> Vec<String> {
    let wanted = key.split('(').next().unwrap_or(key);
    let wanted = wanted.split('<').next().unwrap_or(wanted);
    let wanted = wanted.rsplit("::").next().unwrap_or(wanted).to_lowercase();
    let limit = (wanted.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &Symbol)> = symbols
        .iter()
        .copied()
        .zip(keys)
        .filter_map(|(s, k)| {
            let have = k.unqualified().to_lowercase();
            let distance = edit_distance(&wanted, &have);
            let contains = !wanted.is_empty() && (have.contains(&wanted) || wanted.contains(&have));
            (distance <= limit || contains).then_some((distance, s))
        })
        .collect();
    scored.sort_by_key(|&(d, _)| d);
    scored
        .into_iter()
        .take(8)
        .map(|(_, s)| s.display_name().to_string())
        .collect()
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::{base_identifier, edit_distance};

    #[test]
    fn base_identifiers() {
        assert_eq!(base_identifier("ns::Foo<int>::bar(int)"), Some("bar"));
        assert_eq!(base_identifier("block_scan<int,128>"), Some("block_scan"));
        assert_eq!(base_identifier("void saxpy(float)"), Some("saxpy"));
        assert_eq!(base_identifier("ns::operator()(int)"), None);
        assert_eq!(base_identifier("operator<"), None);
        assert_eq!(base_identifier(""), None);
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("saxpy", "saxpy"), 0);
        assert_eq!(edit_distance("saxpy", "daxpy"), 1);
        assert_eq!(edit_distance("scan", "block_scan"), 6);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
