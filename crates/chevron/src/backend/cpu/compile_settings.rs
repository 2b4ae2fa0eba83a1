//! The settings of the CPU device's compiled code, read once from the environment and handed
//! to the compiler as [`CompileOptions`] (chevron-cpu-jit reads no variable itself):
//!
//! - `CHEVRON_CPU_EXEC` (`interp`, `compiled` or `auto`; unset: `auto`): the [`ExecMode`];
//! - `CHEVRON_CPU_CHECKS` (`on` or `off`; unset: `on`): [`CompileOptions::checks`];
//! - `CHEVRON_CPU_VECTOR` (`on` or `off`; unset: `on`): [`CompileOptions::vectors`];
//! - `CHEVRON_CPU_CODE_CACHE` (`on` or `off`; unset: `on`): the code cache's folder,
//!   `$XDG_CACHE_HOME/chevron/cpu-code` (else `$HOME/.cache/chevron/cpu-code`; none when
//!   neither is set);
//! - `CHEVRON_CPU_CODE_DUMP=DIR`: each compiled function's machine code written to `DIR`;
//! - `CHEVRON_CPU_GROUP_THREADS` (4, 8, 16 or 32; unset: [`GROUP_THREADS`]): the widest group
//!   of threads a vector function runs at once ([`CompileOptions::group_threads`]); a kernel
//!   gets the widest up to it that divides its first compiled launch's rows (`tier.rs`).
//!
//! A malformed value is an error that fails the launch which reads it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use chevron_cpu_jit::CompileOptions;

/// The widest group of threads of a vector function unless `CHEVRON_CPU_GROUP_THREADS` says.
pub(crate) const GROUP_THREADS: u32 = 32;

/// How the CPU device runs kernels (`CHEVRON_CPU_EXEC`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExecMode {
    /// Always the interpreter.
    Interp,
    /// Compile every kernel at its first launch (kernels outside the subset are interpreted).
    Compiled,
    /// Compile a kernel once its launches are big enough to pay for the compile time, and
    /// interpret the rest (`tier.rs` decides).
    Auto,
}

/// The policy and compile options the environment asks for, or why it is invalid.
pub(crate) fn from_env() -> Result<(ExecMode, CompileOptions), String> {
    from_lookup(|name| std::env::var_os(name))
}

/// [`from_env`] reading variables through `lookup`.
fn from_lookup(
    lookup: impl Fn(&str) -> Option<OsString>,
) -> Result<(ExecMode, CompileOptions), String> {
    let text = |name: &str| lookup(name).map(|v| v.to_string_lossy().trim().to_string());
    let mode = match text("CHEVRON_CPU_EXEC").as_deref() {
        None | Some("auto") | Some("") => ExecMode::Auto,
        Some("interp") => ExecMode::Interp,
        Some("compiled") => ExecMode::Compiled,
        Some(other) => {
            return Err(format!(
                "CHEVRON_CPU_EXEC={other}: expected interp, compiled or auto"
            ))
        }
    };
    let switch = |name: &str| match text(name).as_deref() {
        None | Some("on") | Some("") => Ok(true),
        Some("off") => Ok(false),
        Some(other) => Err(format!("{name}={other}: expected on or off")),
    };
    let options = CompileOptions {
        checks: switch("CHEVRON_CPU_CHECKS")?,
        vectors: switch("CHEVRON_CPU_VECTOR")?,
        code_cache: if switch("CHEVRON_CPU_CODE_CACHE")? {
            cache_folder(lookup("XDG_CACHE_HOME"), lookup("HOME"))
        } else {
            None
        },
        code_dump: lookup("CHEVRON_CPU_CODE_DUMP")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
        group_threads: match text("CHEVRON_CPU_GROUP_THREADS").as_deref() {
            None | Some("") => GROUP_THREADS,
            Some(n @ ("4" | "8" | "16" | "32")) => n.parse().unwrap_or(GROUP_THREADS),
            Some(other) => {
                return Err(format!(
                    "CHEVRON_CPU_GROUP_THREADS={other}: expected 4, 8, 16 or 32"
                ))
            }
        },
    };
    Ok((mode, options))
}

/// The code cache's folder under `$XDG_CACHE_HOME`, else `$HOME/.cache`.
fn cache_folder(xdg_cache_home: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    let base = match (
        xdg_cache_home.filter(|v| !v.is_empty()),
        home.filter(|v| !v.is_empty()),
    ) {
        (Some(base), _) => PathBuf::from(base),
        (None, Some(home)) => Path::new(&home).join(".cache"),
        (None, None) => return None,
    };
    Some(base.join("chevron").join("cpu-code"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(vars: &[(&str, &str)]) -> Result<(ExecMode, CompileOptions), String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        from_lookup(move |name| {
            vars.iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| OsString::from(v))
        })
    }

    #[test]
    fn unset_variables_take_their_defaults() {
        let (mode, options) = settings(&[("HOME", "/h")]).unwrap();
        assert_eq!(mode, ExecMode::Auto);
        assert_eq!(
            options,
            CompileOptions {
                code_cache: Some(PathBuf::from("/h/.cache/chevron/cpu-code")),
                group_threads: GROUP_THREADS,
                ..CompileOptions::default()
            }
        );
    }

    #[test]
    fn each_variable_is_read_and_checked() {
        let (mode, options) = settings(&[
            ("CHEVRON_CPU_EXEC", "compiled"),
            ("CHEVRON_CPU_CHECKS", "off"),
            ("CHEVRON_CPU_VECTOR", " off "),
            ("CHEVRON_CPU_CODE_DUMP", "/d"),
            ("CHEVRON_CPU_GROUP_THREADS", "8"),
            ("XDG_CACHE_HOME", "/x"),
            ("HOME", "/h"),
        ])
        .unwrap();
        assert_eq!(mode, ExecMode::Compiled);
        assert!(!options.checks && !options.vectors);
        assert_eq!(options.group_threads, 8);
        assert_eq!(options.code_dump, Some(PathBuf::from("/d")));
        assert_eq!(
            options.code_cache,
            Some(PathBuf::from("/x/chevron/cpu-code"))
        );
        let off = settings(&[("CHEVRON_CPU_CODE_CACHE", "off"), ("HOME", "/h")]).unwrap();
        assert_eq!(off.1.code_cache, None);
        assert_eq!(
            settings(&[]).unwrap().1.code_cache,
            None,
            "no folder to name"
        );
        for (name, value) in [
            ("CHEVRON_CPU_EXEC", "fast"),
            ("CHEVRON_CPU_GROUP_THREADS", "12"),
            ("CHEVRON_CPU_CHECKS", "maybe"),
            ("CHEVRON_CPU_VECTOR", "2"),
            ("CHEVRON_CPU_CODE_CACHE", "sometimes"),
        ] {
            let why = settings(&[(name, value)]).unwrap_err();
            assert!(why.contains(name) && why.contains(value), "{why}");
        }
    }
}
