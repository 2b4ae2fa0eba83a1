//! Registers declared without a `%` prefix (as inline assembly writes `.reg .pred p;`), by
//! scope, so that bare names in operands can be told apart from symbols in constant time.

use std::collections::HashMap;

/// The bare register names visible at the current point of a function body.
#[derive(Debug, Default)]
pub(crate) struct RegisterScope {
    /// Declarations in order, for leaving blocks: the name and its `<N>` range, if any.
    log: Vec<(String, Option<u32>)>,
    /// Live plain declarations: name to the number of (shadowing) declarations.
    plain: HashMap<String, u32>,
    /// Live range declarations: prefix to the ranges declared, innermost last.
    ranges: HashMap<String, Vec<u32>>,
}

impl RegisterScope {
    /// Forgets every declaration (at the start of a function).
    pub fn clear(&mut self) {
        self.log.clear();
        self.plain.clear();
        self.ranges.clear();
    }

    /// A mark to return to with [`RegisterScope::leave`] when a block ends.
    pub fn mark(&self) -> usize {
        self.log.len()
    }

    /// Declares `name` (with `<N>`, `name0`..`name{N-1}`); `%`-names need no declaration.
    pub fn declare(&mut self, name: &str, range: Option<u32>) {
        if name.starts_with('%') {
            return;
        }
        match range {
            None => *self.plain.entry(name.to_string()).or_insert(0) += 1,
            Some(n) => self.ranges.entry(name.to_string()).or_default().push(n),
        }
        self.log.push((name.to_string(), range));
    }

    /// Drops the declarations made since `mark`.
    pub fn leave(&mut self, mark: usize) {
        while self.log.len() > mark {
            let Some((name, range)) = self.log.pop() else {
                break;
            };
            match range {
                None => {
                    if let Some(count) = self.plain.get_mut(&name) {
                        *count -= 1;
                        if *count == 0 {
                            self.plain.remove(&name);
                        }
                    }
                }
                Some(_) => {
                    if let Some(stack) = self.ranges.get_mut(&name) {
                        stack.pop();
                        if stack.is_empty() {
                            self.ranges.remove(&name);
                        }
                    }
                }
            }
        }
    }

    /// Whether `name` is a register: `%`-prefixed, or declared and in scope.
    pub fn contains(&self, name: &str) -> bool {
        if name.starts_with('%') {
            return true;
        }
        if self.log.is_empty() {
            return false;
        }
        if self.plain.contains_key(name) {
            return true;
        }
        // `r12` may come from `r<13>` or `r1<3>`: try each split inside the trailing digits.
        let digits = name.bytes().rev().take_while(u8::is_ascii_digit).count();
        (1..=digits).any(|len| {
            let (prefix, index) = name.split_at(name.len() - len);
            !prefix.is_empty()
                && self.ranges.get(prefix).is_some_and(|stack| {
                    let index: Option<u64> = index.parse().ok();
                    stack
                        .iter()
                        .any(|&n| index.is_some_and(|i| i < u64::from(n)))
                })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_range_declarations_follow_scopes() {
        let mut scope = RegisterScope::default();
        assert!(scope.contains("%r1"));
        assert!(!scope.contains("p"));
        scope.declare("p", None);
        let mark = scope.mark();
        scope.declare("r", Some(4));
        scope.declare("q1", Some(2));
        scope.declare("p", None);
        assert!(scope.contains("r3") && !scope.contains("r4") && !scope.contains("r"));
        assert!(scope.contains("q11") && !scope.contains("q12"));
        scope.leave(mark);
        assert!(scope.contains("p"));
        assert!(!scope.contains("r3") && !scope.contains("q10"));
        scope.clear();
        assert!(!scope.contains("p"));
    }
}
