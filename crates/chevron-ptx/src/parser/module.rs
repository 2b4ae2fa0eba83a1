//! Module scope: the header directives and the items between them.

use super::Parser;
use crate::error::ParseError;
use crate::ir::{Item, Linkage, Module, Version};
use crate::lexer::Tok;

impl<'a> Parser<'a> {
    /// Parses a whole module.
    pub(crate) fn module(mut self) -> Result<Module, ParseError> {
        let mut module = Module {
            address_size: 64,
            ..Module::default()
        };
        loop {
            match self.kind() {
                Tok::End => return Ok(module),
                Tok::Semi => self.bump(),
                Tok::DotWord => self.module_directive(&mut module)?,
                _ => return Err(self.error("a directive", "expected a module-scope directive")),
            }
        }
    }

    /// Parses one directive at module scope.
    fn module_directive(&mut self, module: &mut Module) -> Result<(), ParseError> {
        let directive = self.text();
        if matches!(
            directive,
            ".version" | ".target" | ".address_size" | ".file" | ".section" | ".pragma" | ".alias"
        ) {
            self.set_context("directive", directive);
        }
        let result = self.module_directive_body(module);
        self.context = None;
        result
    }

    /// Parses the directive [`Parser::module_directive`] stands at.
    fn module_directive_body(&mut self, module: &mut Module) -> Result<(), ParseError> {
        match self.text() {
            ".version" => {
                self.bump();
                module.version = self.version()?;
            }
            ".target" => {
                self.bump();
                module.target.clear();
                loop {
                    module.target.push(self.name("a target name")?.to_string());
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
            }
            ".address_size" => {
                self.bump();
                module.address_size = self.u32_int("an address size")?;
            }
            ".file" => {
                self.bump();
                let item = self.file()?;
                module.items.push(item);
            }
            ".section" => {
                self.bump();
                let item = self.section()?;
                module.items.push(item);
            }
            ".pragma" => {
                self.bump();
                let strings = self.pragma_strings()?;
                module.items.push(Item::Pragma(strings));
            }
            ".alias" => {
                self.bump();
                let alias = self.name("an alias name")?.to_string();
                self.expect(Tok::Comma, "`,`")?;
                let aliasee = self.name("the aliased function")?.to_string();
                self.expect(Tok::Semi, "`;`")?;
                module.items.push(Item::Alias { alias, aliasee });
            }
            _ => self.linked_item(&mut module.items)?,
        }
        Ok(())
    }

    /// Parses `major.minor`.
    fn version(&mut self) -> Result<Version, ParseError> {
        let text = self.text();
        let parsed = match self.kind() {
            Tok::DecFloat => text
                .split_once('.')
                .and_then(|(major, minor)| Some((major.parse().ok()?, minor.parse().ok()?))),
            Tok::Int => text.parse().ok().map(|major| (major, 0)),
            _ => None,
        };
        match parsed {
            Some((major, minor)) => {
                self.bump();
                Ok(Version { major, minor })
            }
            None => Err(self.error("a version such as `8.0`", "bad .version")),
        }
    }

    /// Parses `index "path"[, timestamp, size]` after `.file`.
    fn file(&mut self) -> Result<Item, ParseError> {
        let index = self.u32_int("a file index")?;
        let path = self.string()?;
        let mut extra = Vec::new();
        while self.eat(Tok::Comma) {
            extra.push(self.unsigned_int()?);
        }
        Ok(Item::File { index, path, extra })
    }

    /// Parses `name { … }` after `.section`, keeping the body verbatim.
    fn section(&mut self) -> Result<Item, ParseError> {
        let name = match self.kind() {
            Tok::DotWord | Tok::Ident => self.take().to_string(),
            _ => return Err(self.error("a section name", "expected a section name")),
        };
        if !self.at(Tok::LBrace) {
            return Err(self.error("`{`", "expected the section body"));
        }
        // The stream stands right after `{`: scan the raw text for the matching `}`.
        let raw = self.stream.remainder();
        let Some(len) = raw_block_len(raw) else {
            return Err(self.error("`}`", "unterminated .section body"));
        };
        let body = raw[..len].to_string();
        self.stream.skip_raw(len + 1);
        self.bump();
        Ok(Item::Section { name, body })
    }

    /// Parses `"…"[, "…"]* ;` after `.pragma`.
    pub(crate) fn pragma_strings(&mut self) -> Result<Vec<String>, ParseError> {
        let mut strings = vec![self.string()?];
        while self.eat(Tok::Comma) {
            strings.push(self.string()?);
        }
        self.expect(Tok::Semi, "`;`")?;
        Ok(strings)
    }

    /// Parses a string literal, returning its text without the quotes.
    pub(crate) fn string(&mut self) -> Result<String, ParseError> {
        let text = self.expect(Tok::Str, "a string")?;
        Ok(text[1..text.len() - 1].to_string())
    }

    /// Parses an item that may start with linkage words: a function or variables.
    fn linked_item(&mut self, items: &mut Vec<Item>) -> Result<(), ParseError> {
        let span = self.span();
        let mut linkage = Linkage::Internal;
        while self.at(Tok::DotWord) {
            linkage = match self.text() {
                ".extern" => Linkage::Extern,
                ".visible" => Linkage::Visible,
                ".weak" => Linkage::Weak,
                ".common" => Linkage::Common,
                _ => break,
            };
            self.bump();
        }
        if self.at_word(".entry") || self.at_word(".func") {
            let function = self.function(linkage, span)?;
            items.push(Item::Function(function));
        } else {
            let variables = self.variables(linkage, span)?;
            items.extend(variables.into_iter().map(Item::Variable));
        }
        Ok(())
    }
}

/// Length of the raw text up to (not including) the `}` closing a block whose `{` was just
/// read; strings and comments are skipped, nested braces counted.
fn raw_block_len(raw: &str) -> Option<usize> {
    let bytes = raw.as_bytes();
    let mut depth = 1u32;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = i + 2 + raw[i + 2..].find("*/")? + 1;
            }
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_block_skips_strings_and_comments() {
        assert_eq!(raw_block_len(" a } b"), Some(3));
        assert_eq!(raw_block_len(" \"}\" // }\n }"), Some(11));
        assert_eq!(raw_block_len("{ } /* } */ }"), Some(12));
        assert_eq!(raw_block_len(" /* } "), None);
        assert_eq!(raw_block_len(" \"\\"), None);
    }
}
