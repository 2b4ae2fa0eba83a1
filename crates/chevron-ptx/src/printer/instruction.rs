//! Printing instructions, operands and immediates.

use crate::ir::{Address, AddressBase, Immediate, Instruction, Operand, RegisterRef};
use std::fmt::Write;

/// Prints one instruction with its `;` (no newline).
pub(super) fn print_instruction(out: &mut String, inst: &Instruction) {
    if let Some(guard) = &inst.guard {
        let _ = write!(
            out,
            "@{}{} ",
            if guard.negated { "!" } else { "" },
            guard.register
        );
    }
    out.push_str(inst.opcode.as_str());
    for modifier in &inst.modifiers {
        out.push('.');
        out.push_str(&modifier.to_word());
    }
    for (i, operand) in inst.operands.iter().enumerate() {
        out.push_str(if i == 0 { " " } else { ", " });
        print_operand(out, operand);
    }
    out.push(';');
}

/// Prints an operand.
pub(super) fn print_operand(out: &mut String, operand: &Operand) {
    match operand {
        Operand::Register(reg) => print_register(out, reg),
        Operand::Not(reg) => {
            out.push('!');
            print_register(out, reg);
        }
        Operand::Immediate(imm) => print_immediate(out, *imm),
        Operand::Symbol(name) => out.push_str(name),
        Operand::SymbolOffset(name, offset) => {
            out.push_str(name);
            if *offset < 0 {
                print_signed_offset(out, *offset);
            } else {
                let _ = write!(out, "+{offset}");
            }
        }
        Operand::Address(address) => print_address(out, address),
        Operand::Vector(items) => print_list(out, items, '{', '}'),
        Operand::List(items) => print_list(out, items, '(', ')'),
        Operand::AddressList(items) => print_list(out, items, '[', ']'),
        Operand::Sink => out.push('_'),
        Operand::PredicatePair(value, predicate) => {
            print_operand(out, value);
            out.push('|');
            print_register(out, predicate);
        }
    }
}

/// Prints `open a, b close`.
fn print_list(out: &mut String, items: &[Operand], open: char, close: char) {
    out.push(open);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        print_operand(out, item);
    }
    out.push(close);
}

/// Prints a register with its component.
fn print_register(out: &mut String, reg: &RegisterRef) {
    out.push_str(&reg.name);
    if let Some(component) = reg.component {
        out.push_str(match component {
            0 => ".x",
            1 => ".y",
            2 => ".z",
            _ => ".w",
        });
    }
}

/// Prints `[base+offset]`.
fn print_address(out: &mut String, address: &Address) {
    out.push('[');
    match &address.base {
        AddressBase::Register(reg) => {
            print_register(out, reg);
            print_signed_offset(out, address.offset);
        }
        AddressBase::Symbol(name) => {
            out.push_str(name);
            print_signed_offset(out, address.offset);
        }
        AddressBase::Absolute => print_int(out, address.offset),
    }
    out.push(']');
}

/// Prints `+n` or `-n` after a base; nothing for 0.
pub(super) fn print_signed_offset(out: &mut String, offset: i64) {
    if offset > 0 {
        let _ = write!(out, "+{offset}");
    } else if offset < 0 {
        out.push('+');
        print_int(out, offset);
    }
}

/// Prints an integer; the one value with no positive counterpart is printed in hex.
fn print_int(out: &mut String, value: i64) {
    if value == i64::MIN {
        out.push_str("0x8000000000000000");
    } else {
        let _ = write!(out, "{value}");
    }
}

/// Prints an immediate: integers in decimal, floats as their `0f`/`0d` bit patterns.
pub(super) fn print_immediate(out: &mut String, imm: Immediate) {
    match imm {
        Immediate::Int(v) => print_int(out, v),
        Immediate::F32(bits) => {
            let _ = write!(out, "0f{bits:08X}");
        }
        Immediate::F64(bits) => {
            let _ = write!(out, "0d{bits:016X}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn immediate(imm: Immediate) -> String {
        let mut out = String::new();
        print_immediate(&mut out, imm);
        out
    }

    #[test]
    fn immediates_print_in_a_form_that_parses_back() {
        assert_eq!(immediate(Immediate::Int(-1)), "-1");
        assert_eq!(immediate(Immediate::Int(i64::MIN)), "0x8000000000000000");
        assert_eq!(immediate(Immediate::F32(0x3F80_0000)), "0f3F800000");
        assert_eq!(immediate(Immediate::F64(1)), "0d0000000000000001");
    }

    #[test]
    fn offsets_and_operand_shapes() {
        let mut out = String::new();
        print_signed_offset(&mut out, -8);
        print_signed_offset(&mut out, 0);
        print_signed_offset(&mut out, 4);
        assert_eq!(out, "+-8+4");
        let mut out = String::new();
        let pair = Operand::PredicatePair(
            Box::new(Operand::Sink),
            RegisterRef {
                name: "%p1".into(),
                component: None,
            },
        );
        print_operand(&mut out, &pair);
        out.push(' ');
        print_operand(
            &mut out,
            &Operand::AddressList(vec![
                Operand::Symbol("tmap".into()),
                Operand::Vector(vec![Operand::Immediate(Immediate::Int(0))]),
            ]),
        );
        out.push(' ');
        print_operand(
            &mut out,
            &Operand::Register(RegisterRef {
                name: "%tid".into(),
                component: Some(2),
            }),
        );
        assert_eq!(out, "_|%p1 [tmap, {0}] %tid.z");
    }
}
