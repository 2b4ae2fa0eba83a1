//! The typed IR of a PTX module.
//!
//! The parser produces it, the printer turns it back into PTX text, the symbol table and the
//! linker read it, rewriting passes edit it in place, and the interpreter decodes it once into its
//! own executable form. It is deliberately close to the text: one [`Instruction`] per PTX
//! instruction, modifiers kept in the order they were written, so that
//! `parse(print(parse(x))) == parse(x)` holds and rewrites stay local.
//!
//! Words that PTX spells the same in different roles are classified by the parser with the
//! opcode's help:
//! - `.lo`/`.hi` are [`Compare::Lo`]/[`Compare::Hi`] after `setp`, `set`, `slct`-like compare
//!   opcodes (`setp`, `set`, `vset*`), and [`Flag::Lo`]/[`Flag::Hi`] everywhere else (`mul.hi`).
//! - `.and`/`.or`/`.xor`/`.add`/`.min`/`.max`/`.popc`… are always [`Modifier::Op`]; the opcode says
//!   whether that is an atomic operation, a boolean combination (`setp.lt.and`) or a reduction.
//! - `.uni` is always [`Flag::Uni`] (`bra.uni`, `call.uni`, `vote.uni`).
//!
//! Any word the parser does not know is kept as [`Modifier::Other`] (without the leading dot), and
//! any opcode it does not know as [`Opcode::Other`], so that new PTX still parses and prints; the
//! interpreter rejects what it cannot execute with a clear error.

/// A position in the source text: 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in bytes).
    pub col: u32,
}

/// A whole PTX module (one translation unit).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Module {
    /// `.version major.minor`.
    pub version: Version,
    /// `.target` words in order, e.g. `["sm_80"]` or `["sm_90a", "debug"]`.
    pub target: Vec<String>,
    /// `.address_size` (32 or 64); 64 when absent.
    pub address_size: u32,
    /// Module-scope items in source order.
    pub items: Vec<Item>,
}

/// A PTX ISA version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Version {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

/// A module-scope item.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// `.entry` or `.func`, declared or defined.
    Function(Function),
    /// A module-scope variable (`.global`, `.const`, `.shared`, …).
    Variable(Variable),
    /// `.file index "path"[, timestamp, size]`.
    File {
        /// The file index used by `.loc`.
        index: u32,
        /// The path, unquoted.
        path: String,
        /// Optional timestamp and size.
        extra: Vec<u64>,
    },
    /// `.section name { … }`: debug sections, kept verbatim.
    Section {
        /// Section name including its leading dot, e.g. `.debug_abbrev`.
        name: String,
        /// The text between the braces, verbatim.
        body: String,
    },
    /// `.pragma "…";` at module scope.
    Pragma(Vec<String>),
    /// `.alias alias, aliasee;`.
    Alias {
        /// The new name.
        alias: String,
        /// The function it names.
        aliasee: String,
    },
}

/// Linkage of a function or variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Linkage {
    /// No linkage directive: local to the module.
    #[default]
    Internal,
    /// `.visible`: defined here, visible to other modules.
    Visible,
    /// `.extern`: declared here, defined elsewhere.
    Extern,
    /// `.weak`: visible, may be overridden by a strong definition.
    Weak,
    /// `.common`: like weak, the largest definition wins (globals only).
    Common,
}

/// Whether a function is a kernel or a device function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    /// `.entry`: a kernel.
    Entry,
    /// `.func`: a device function.
    Func,
}

/// An `.entry` or `.func`.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    /// Kernel or device function.
    pub kind: FunctionKind,
    /// Linkage directive.
    pub linkage: Linkage,
    /// The (possibly mangled) name.
    pub name: String,
    /// Return parameters (`.func` only), in order.
    pub returns: Vec<Param>,
    /// Parameters, in order.
    pub params: Vec<Param>,
    /// `.noreturn` attribute.
    pub noreturn: bool,
    /// Performance-tuning and other directives between the signature and the body, in order
    /// (`.maxntid`, `.reqntid`, `.minnctapersm`, `.maxnreg`, `.pragma`, …).
    pub directives: Vec<FunctionDirective>,
    /// The body; `None` for a declaration ending in `;`.
    pub body: Option<Vec<Statement>>,
    /// Where the `.entry`/`.func` keyword (or its first linkage word) starts.
    pub span: Span,
}

/// A directive attached to a function before its body.
#[derive(Debug, Clone, PartialEq)]
pub enum FunctionDirective {
    /// `.maxntid x[, y[, z]]`, `.reqntid …`, `.minnctapersm n`, `.maxnreg n`, `.maxnctapersm n`,
    /// `.reqnctapercluster …`, `.maxclusterrank n`, `.explicitcluster` (no values): the name
    /// without its dot, and the values.
    Performance {
        /// Directive name without the dot, e.g. `maxntid`.
        name: String,
        /// The numbers that follow.
        values: Vec<u32>,
    },
    /// `.pragma "…";` between signature and body.
    Pragma(Vec<String>),
}

/// A parameter of a function (or a return value of a `.func`).
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// `.param` for kernel parameters and most function parameters; `.reg` for register
    /// parameters of `.func`.
    pub space: StateSpace,
    /// `.align n`, if written.
    pub align: Option<u32>,
    /// Element type.
    pub ty: ScalarType,
    /// `.v2`/`.v4` vector width, if any.
    pub vector: Option<u8>,
    /// Array dimensions (`p[16]` gives `[Some(16)]`; `p[]` gives `[None]`).
    pub array: Vec<Option<u64>>,
    /// `.ptr .space .align n` attribute of kernel pointer parameters.
    pub ptr: Option<PtrAttr>,
    /// The parameter's name (may be `_` in prototypes).
    pub name: String,
}

/// The `.ptr` attribute of a kernel parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct PtrAttr {
    /// The state space pointed to, if written.
    pub space: Option<StateSpace>,
    /// `.align n`, if written.
    pub align: Option<u32>,
}

/// A variable declaration: module-scope or inside a body, including `.reg` declarations.
#[derive(Debug, Clone, PartialEq)]
pub struct Variable {
    /// Linkage (module scope only; `Internal` inside bodies).
    pub linkage: Linkage,
    /// The state space: `Reg`, `Global`, `Const`, `Shared`, `Local`, `Param`, …
    pub space: StateSpace,
    /// `.align n`.
    pub align: Option<u32>,
    /// `.v2`/`.v4`/`.v8`.
    pub vector: Option<u8>,
    /// Element type.
    pub ty: ScalarType,
    /// The name (for `%r<12>`, the prefix `%r`).
    pub name: String,
    /// For `%r<12>`: `Some(12)`, declaring `%r0`..`%r11`.
    pub range: Option<u32>,
    /// Array dimensions; `[]` (unsized, e.g. `extern .shared`) is `None`.
    pub array: Vec<Option<u64>>,
    /// `= …` initializer.
    pub init: Option<Initializer>,
    /// `.attribute(.managed)`-style attributes, without dots (e.g. `["managed"]`).
    pub attributes: Vec<String>,
    /// Where the declaration starts.
    pub span: Span,
}

/// The initializer of a variable.
#[derive(Debug, Clone, PartialEq)]
pub enum Initializer {
    /// A number.
    Immediate(Immediate),
    /// The address of a symbol, optionally `generic(sym)`, plus a byte offset.
    Address {
        /// The variable or function named.
        symbol: String,
        /// `generic(sym)` rather than `sym`.
        generic: bool,
        /// `sym+8` gives 8.
        offset: i64,
    },
    /// `{ … }`.
    Array(Vec<Initializer>),
    /// `0xFF00(value)`: the bytes of `value` (usually an address) selected by `mask`, shifted
    /// down to the lowest byte; LLVM emits these for pointers inside packed aggregates.
    Mask {
        /// The mask: `0xFF` shifted left by a whole number of bytes.
        mask: u64,
        /// The masked value.
        value: Box<Initializer>,
    },
}

/// One statement of a function body.
#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    /// `name:`.
    Label(String),
    /// An instruction.
    Instruction(Instruction),
    /// A declaration inside the body (`.reg`, `.local`, `.shared`, `.param`).
    Variable(Variable),
    /// `{ … }`: a nested scope (compilers emit these around calls).
    Block(Vec<Statement>),
    /// `label: .callprototype (returns) _ (params);`.
    CallPrototype {
        /// The prototype's label.
        label: String,
        /// Return parameters.
        returns: Vec<Param>,
        /// Parameters.
        params: Vec<Param>,
        /// `.noreturn`.
        noreturn: bool,
    },
    /// `.loc file line col[, …]`: the rest after the three numbers is kept verbatim.
    Loc {
        /// File index.
        file: u32,
        /// Line.
        line: u32,
        /// Column.
        col: u32,
        /// Anything after the column (`, function_name …, inlined_at …`), verbatim, may be empty.
        extra: String,
    },
    /// `.pragma "…";` inside a body.
    Pragma(Vec<String>),
    /// `label: .branchtargets l1, l2, …;`: the targets of a `brx.idx`.
    BranchTargets {
        /// The list's label.
        label: String,
        /// The target labels, in order.
        targets: Vec<String>,
    },
    /// `label: .calltargets f1, f2, …;`: the possible targets of an indirect call.
    CallTargets {
        /// The list's label.
        label: String,
        /// The function names, in order.
        targets: Vec<String>,
    },
}

/// A guard predicate: `@%p` or `@!%p`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guard {
    /// The predicate register.
    pub register: String,
    /// `@!`.
    pub negated: bool,
}

/// One PTX instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    /// `@p` / `@!p`.
    pub guard: Option<Guard>,
    /// The opcode, e.g. `ld`.
    pub opcode: Opcode,
    /// Modifiers in written order, e.g. `.global.nc.v4.f32`.
    pub modifiers: Vec<Modifier>,
    /// Operands in written order; the destination(s) first, as in PTX.
    pub operands: Vec<Operand>,
    /// Where the instruction (its guard, if any) starts.
    pub span: Span,
}

impl Instruction {
    /// The type modifiers in written order (`cvt.rn.f32.s32` gives `[F32, S32]`).
    pub fn types(&self) -> impl Iterator<Item = ScalarType> + '_ {
        self.modifiers.iter().filter_map(|m| match m {
            Modifier::Type(t) => Some(*t),
            _ => None,
        })
    }

    /// The first type modifier, if any.
    pub fn ty(&self) -> Option<ScalarType> {
        self.types().next()
    }

    /// The state-space modifier, if any.
    pub fn space(&self) -> Option<StateSpace> {
        self.modifiers.iter().find_map(|m| match m {
            Modifier::Space(s) => Some(*s),
            _ => None,
        })
    }

    /// The rounding modifier, if any.
    pub fn rounding(&self) -> Option<Rounding> {
        self.modifiers.iter().find_map(|m| match m {
            Modifier::Rounding(r) => Some(*r),
            _ => None,
        })
    }

    /// The comparison modifier, if any.
    pub fn compare(&self) -> Option<Compare> {
        self.modifiers.iter().find_map(|m| match m {
            Modifier::Compare(c) => Some(*c),
            _ => None,
        })
    }

    /// The operation modifiers in order (`atom.global.add` gives `[Add]`; `setp.lt.and` gives
    /// `[And]`).
    pub fn ops(&self) -> impl Iterator<Item = Op> + '_ {
        self.modifiers.iter().filter_map(|m| match m {
            Modifier::Op(o) => Some(*o),
            _ => None,
        })
    }

    /// The vector width modifier (`.v2`, `.v4`, `.v8`), if any.
    pub fn vector(&self) -> Option<u8> {
        self.modifiers.iter().find_map(|m| match m {
            Modifier::Vector(n) => Some(*n),
            _ => None,
        })
    }

    /// Whether the flag is present.
    pub fn has(&self, flag: Flag) -> bool {
        self.modifiers.contains(&Modifier::Flag(flag))
    }
}

/// An operand.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// A register, possibly with a vector component: `%r1`, `%tid.x`.
    Register(RegisterRef),
    /// `!%p` (a negated predicate source).
    Not(RegisterRef),
    /// A numeric literal.
    Immediate(Immediate),
    /// A name: label, function, variable or prototype.
    Symbol(String),
    /// A symbol plus offset outside brackets: `sym+4` (e.g. `mov.u64 %rd, sym+4`).
    SymbolOffset(String, i64),
    /// `[base+offset]`.
    Address(Address),
    /// `{a, b, c, d}`: a vector operand (elements may be `_`).
    Vector(Vec<Operand>),
    /// `(a, b)`: a parenthesised list (call arguments and return values).
    List(Vec<Operand>),
    /// `_`: a sink.
    Sink,
    /// `d|p`: a destination paired with a predicate destination, as in
    /// `shfl.sync.down.b32 %r1|%p1, …`, `setp.lt.s32 %p1|%p2, …` or `elect.sync _|%p1, …`.
    PredicatePair(Box<Operand>, RegisterRef),
    /// `[a, b, …]` with more than one element: texture, surface and tensor-map operands such as
    /// `[%rd1, {%f1, %f2}]` (`tex`, `suld`, `cp.async.bulk.tensor`).
    AddressList(Vec<Operand>),
}

/// A register reference.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RegisterRef {
    /// The name, e.g. `%r1` or `%tid`.
    pub name: String,
    /// Vector component: 0 for `.x`/`.r`, 1 for `.y`/`.g`, 2 for `.z`/`.b`, 3 for `.w`/`.a`.
    pub component: Option<u8>,
}

/// The inside of `[…]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Address {
    /// The base.
    pub base: AddressBase,
    /// The byte offset (may be negative).
    pub offset: i64,
}

/// The base of an address.
#[derive(Debug, Clone, PartialEq)]
pub enum AddressBase {
    /// A register holding an address.
    Register(RegisterRef),
    /// A variable, parameter or function name.
    Symbol(String),
    /// An absolute address: `[1024]`.
    Absolute,
}

/// A numeric literal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Immediate {
    /// An integer literal, as its 64-bit two's-complement pattern.
    Int(i64),
    /// `0fXXXXXXXX`: an f32 bit pattern.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX` or a decimal float literal: an f64 bit pattern.
    F64(u64),
}

/// A PTX state space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StateSpace {
    /// `.reg`.
    Reg,
    /// `.sreg`.
    Sreg,
    /// `.const`.
    Const,
    /// `.global`.
    Global,
    /// `.local`.
    Local,
    /// `.param`.
    Param,
    /// `.param::entry`.
    ParamEntry,
    /// `.param::func`.
    ParamFunc,
    /// `.shared`.
    Shared,
    /// `.shared::cta`.
    SharedCta,
    /// `.shared::cluster`.
    SharedCluster,
    /// `.tex`.
    Tex,
}

impl StateSpace {
    /// The PTX spelling without the dot.
    pub fn as_str(self) -> &'static str {
        match self {
            StateSpace::Reg => "reg",
            StateSpace::Sreg => "sreg",
            StateSpace::Const => "const",
            StateSpace::Global => "global",
            StateSpace::Local => "local",
            StateSpace::Param => "param",
            StateSpace::ParamEntry => "param::entry",
            StateSpace::ParamFunc => "param::func",
            StateSpace::Shared => "shared",
            StateSpace::SharedCta => "shared::cta",
            StateSpace::SharedCluster => "shared::cluster",
            StateSpace::Tex => "tex",
        }
    }

    /// Parses the spelling without the dot.
    pub fn from_word(word: &str) -> Option<StateSpace> {
        Some(match word {
            "reg" => StateSpace::Reg,
            "sreg" => StateSpace::Sreg,
            "const" => StateSpace::Const,
            "global" => StateSpace::Global,
            "local" => StateSpace::Local,
            "param" => StateSpace::Param,
            "param::entry" => StateSpace::ParamEntry,
            "param::func" => StateSpace::ParamFunc,
            "shared" => StateSpace::Shared,
            "shared::cta" => StateSpace::SharedCta,
            "shared::cluster" => StateSpace::SharedCluster,
            "tex" => StateSpace::Tex,
            _ => return None,
        })
    }
}

/// Declares a fieldless enum with its PTX spelling, `as_str` and `from_word`.
macro_rules! ptx_words {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $word:literal),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $(
                #[doc = concat!("`", $word, "`")]
                $variant,
            )*
        }

        impl $name {
            /// The PTX spelling (without a leading dot).
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $word,)* }
            }

            /// Parses the PTX spelling (without a leading dot).
            pub fn from_word(word: &str) -> Option<Self> {
                match word { $($word => Some($name::$variant),)* _ => None }
            }
        }
    };
}

ptx_words! {
    /// A PTX fundamental type.
    ScalarType {
        Pred = "pred", B8 = "b8", B16 = "b16", B32 = "b32", B64 = "b64", B128 = "b128",
        U8 = "u8", U16 = "u16", U32 = "u32", U64 = "u64",
        S8 = "s8", S16 = "s16", S32 = "s32", S64 = "s64",
        F16 = "f16", F16x2 = "f16x2", Bf16 = "bf16", Bf16x2 = "bf16x2", Tf32 = "tf32",
        F32 = "f32", F64 = "f64",
        U16x2 = "u16x2", S16x2 = "s16x2",
        E4m3 = "e4m3", E5m2 = "e5m2", E4m3x2 = "e4m3x2", E5m2x2 = "e5m2x2",
    }
}

impl ScalarType {
    /// Size in bytes (`.pred` counts as 1 when stored).
    pub fn size(self) -> u32 {
        use ScalarType::*;
        match self {
            Pred | B8 | U8 | S8 | E4m3 | E5m2 => 1,
            B16 | U16 | S16 | F16 | Bf16 | E4m3x2 | E5m2x2 => 2,
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 | Tf32 | U16x2 | S16x2 => 4,
            B64 | U64 | S64 | F64 => 8,
            B128 => 16,
        }
    }

    /// Whether this is a signed integer type.
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            ScalarType::S8 | ScalarType::S16 | ScalarType::S32 | ScalarType::S64
        )
    }

    /// Whether this is a floating-point type (scalar or packed).
    pub fn is_float(self) -> bool {
        use ScalarType::*;
        matches!(
            self,
            F16 | F16x2 | Bf16 | Bf16x2 | Tf32 | F32 | F64 | E4m3 | E5m2 | E4m3x2 | E5m2x2
        )
    }
}

ptx_words! {
    /// A rounding modifier.
    Rounding {
        Rn = "rn", Rz = "rz", Rm = "rm", Rp = "rp", Rna = "rna", Rs = "rs",
        Rni = "rni", Rzi = "rzi", Rmi = "rmi", Rpi = "rpi",
    }
}

ptx_words! {
    /// A comparison (`setp`, `set`).
    Compare {
        Eq = "eq", Ne = "ne", Lt = "lt", Le = "le", Gt = "gt", Ge = "ge",
        Lo = "lo", Ls = "ls", Hi = "hi", Hs = "hs",
        Equ = "equ", Neu = "neu", Ltu = "ltu", Leu = "leu", Gtu = "gtu", Geu = "geu",
        Num = "num", Nan = "nan",
    }
}

ptx_words! {
    /// An operation named by a modifier: atomic/reduction operations and boolean combinations.
    Op {
        Add = "add", Min = "min", Max = "max", Inc = "inc", Dec = "dec",
        And = "and", Or = "or", Xor = "xor", Exch = "exch", Cas = "cas", Popc = "popc",
    }
}

ptx_words! {
    /// Memory-ordering semantics.
    Semantics {
        Relaxed = "relaxed", Acquire = "acquire", Release = "release", AcqRel = "acq_rel",
        Sc = "sc", Weak = "weak", Volatile = "volatile", Mmio = "mmio",
    }
}

ptx_words! {
    /// Memory scope.
    Scope { Cta = "cta", Cluster = "cluster", Gpu = "gpu", Sys = "sys" }
}

ptx_words! {
    /// `shfl` mode.
    ShuffleMode { Up = "up", Down = "down", Bfly = "bfly", Idx = "idx" }
}

ptx_words! {
    /// `vote` mode (`.uni` is [`Flag::Uni`]).
    VoteMode { All = "all", Any = "any", Ballot = "ballot" }
}

ptx_words! {
    /// A modifier that is a plain flag.
    Flag {
        Ftz = "ftz", Sat = "sat", Approx = "approx", Full = "full", Uni = "uni",
        Wide = "wide", Hi = "hi", Lo = "lo", Cc = "cc", Sync = "sync", Aligned = "aligned",
        Clamp = "clamp", Wrap = "wrap", Shiftamt = "shiftamt", To = "to", Nc = "nc",
        Arrive = "arrive", Red = "red", Relu = "relu", Abs = "abs", Noftz = "noftz",
        Oob = "oob", Satfinite = "satfinite",
        Ca = "ca", Cg = "cg", Cs = "cs", Lu = "lu", Cv = "cv", Wb = "wb", Wt = "wt",
        Left = "l", Right = "r",
    }
}

ptx_words! {
    /// A PTX opcode. Unknown opcodes parse as [`Opcode::Other`].
    KnownOpcode {
        Abs = "abs", Activemask = "activemask", Add = "add", Addc = "addc", Alloca = "alloca",
        And = "and", Atom = "atom", Bar = "bar", Barrier = "barrier", Bfe = "bfe", Bfi = "bfi",
        Bfind = "bfind", Bmsk = "bmsk", Bra = "bra", Brev = "brev", Brkpt = "brkpt", Brx = "brx",
        Call = "call", Clz = "clz", Cnot = "cnot", Copysign = "copysign", Cos = "cos", Cp = "cp",
        Createpolicy = "createpolicy", Cvt = "cvt", Cvta = "cvta", Discard = "discard",
        Div = "div", Dp2a = "dp2a", Dp4a = "dp4a", Elect = "elect", Ex2 = "ex2", Exit = "exit",
        Fence = "fence", Fma = "fma", Fns = "fns", Getctarank = "getctarank",
        Griddepcontrol = "griddepcontrol", Isspacep = "isspacep", Istypep = "istypep",
        Ld = "ld", Ldmatrix = "ldmatrix", Ldu = "ldu", Lg2 = "lg2", Lop3 = "lop3", Mad = "mad",
        Mad24 = "mad24", Madc = "madc", Mapa = "mapa", Match = "match", Max = "max",
        Mbarrier = "mbarrier", Membar = "membar", Min = "min", Mma = "mma", Mov = "mov",
        Movmatrix = "movmatrix", Mul = "mul", Mul24 = "mul24", Multimem = "multimem",
        Nanosleep = "nanosleep", Neg = "neg", Not = "not", Or = "or", Pmevent = "pmevent",
        Popc = "popc", Prefetch = "prefetch", Prefetchu = "prefetchu", Prmt = "prmt",
        Rcp = "rcp", Red = "red", Redux = "redux", Rem = "rem", Ret = "ret", Rsqrt = "rsqrt",
        Sad = "sad", Selp = "selp", Set = "set", Setmaxnreg = "setmaxnreg", Setp = "setp",
        Shf = "shf", Shfl = "shfl", Shl = "shl", Shr = "shr", Sin = "sin", Slct = "slct",
        Sqrt = "sqrt", St = "st", Stackrestore = "stackrestore", Stacksave = "stacksave",
        Stmatrix = "stmatrix", Sub = "sub", Subc = "subc", Suld = "suld", Suq = "suq",
        Sured = "sured", Sust = "sust", Szext = "szext", Tanh = "tanh", Testp = "testp",
        Tex = "tex", Tld4 = "tld4", Trap = "trap", Txq = "txq", Vote = "vote", Wgmma = "wgmma",
        Wmma = "wmma", Xor = "xor", Tensormap = "tensormap", Clusterlaunchcontrol = "clusterlaunchcontrol",
    }
}

/// An opcode: known, or kept as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Opcode {
    /// An opcode of the PTX ISA that chevron knows.
    Known(KnownOpcode),
    /// Anything else, as written.
    Other(String),
}

impl Opcode {
    /// Classifies a word.
    pub fn from_word(word: &str) -> Opcode {
        KnownOpcode::from_word(word)
            .map(Opcode::Known)
            .unwrap_or_else(|| Opcode::Other(word.to_string()))
    }

    /// The PTX spelling.
    pub fn as_str(&self) -> &str {
        match self {
            Opcode::Known(k) => k.as_str(),
            Opcode::Other(s) => s,
        }
    }

    /// The known opcode, if it is one.
    pub fn known(&self) -> Option<KnownOpcode> {
        match self {
            Opcode::Known(k) => Some(*k),
            Opcode::Other(_) => None,
        }
    }
}

/// One `.word` after the opcode.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Modifier {
    /// A type: `.f32`.
    Type(ScalarType),
    /// A state space: `.global`.
    Space(StateSpace),
    /// A rounding mode: `.rn`.
    Rounding(Rounding),
    /// A comparison: `.lt`.
    Compare(Compare),
    /// An operation: `.add`, `.and`.
    Op(Op),
    /// Memory-ordering semantics: `.acquire`.
    Semantics(Semantics),
    /// Memory scope: `.gpu`.
    Scope(Scope),
    /// `.v2`, `.v4`, `.v8`.
    Vector(u8),
    /// `shfl` mode: `.down`.
    Shuffle(ShuffleMode),
    /// `vote` mode: `.ballot`.
    Vote(VoteMode),
    /// A flag: `.ftz`, `.sat`, `.wide`.
    Flag(Flag),
    /// Anything else, as written without the leading dot (e.g. `L2::128B`, `m16n8k16`, `row`).
    Other(String),
}

impl Modifier {
    /// The PTX spelling without the leading dot.
    pub fn to_word(&self) -> String {
        match self {
            Modifier::Type(t) => t.as_str().to_string(),
            Modifier::Space(s) => s.as_str().to_string(),
            Modifier::Rounding(r) => r.as_str().to_string(),
            Modifier::Compare(c) => c.as_str().to_string(),
            Modifier::Op(o) => o.as_str().to_string(),
            Modifier::Semantics(s) => s.as_str().to_string(),
            Modifier::Scope(s) => s.as_str().to_string(),
            Modifier::Vector(n) => format!("v{n}"),
            Modifier::Shuffle(m) => m.as_str().to_string(),
            Modifier::Vote(m) => m.as_str().to_string(),
            Modifier::Flag(f) => f.as_str().to_string(),
            Modifier::Other(s) => s.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        for t in [ScalarType::F16x2, ScalarType::Pred, ScalarType::B128] {
            assert_eq!(ScalarType::from_word(t.as_str()), Some(t));
        }
        assert_eq!(ScalarType::F64.size(), 8);
        assert_eq!(Opcode::from_word("ld"), Opcode::Known(KnownOpcode::Ld));
        assert_eq!(Opcode::from_word("frob").as_str(), "frob");
        assert_eq!(Modifier::Vector(4).to_word(), "v4");
        assert_eq!(
            StateSpace::from_word("shared::cta"),
            Some(StateSpace::SharedCta)
        );
    }

    #[test]
    fn instruction_accessors() {
        let inst = Instruction {
            guard: None,
            opcode: Opcode::Known(KnownOpcode::Cvt),
            modifiers: vec![
                Modifier::Rounding(Rounding::Rn),
                Modifier::Type(ScalarType::F32),
                Modifier::Type(ScalarType::S32),
            ],
            operands: vec![],
            span: Span::default(),
        };
        assert_eq!(
            inst.types().collect::<Vec<_>>(),
            [ScalarType::F32, ScalarType::S32]
        );
        assert_eq!(inst.rounding(), Some(Rounding::Rn));
        assert!(!inst.has(Flag::Ftz));
    }
}
