//! cel-go's bindings extension (`ext.Bindings()`, in the API server's environment): the
//! macro `cel.bind(name, init, expr)`, `expr` with `name` bound to `init`. As in cel-go it
//! expands to a comprehension over an empty list whose accumulator is the name: the loop
//! never runs, and the result is `expr`.

use cel::common::ast::{ComprehensionExpr, Expr, ListExpr, LiteralValue};
use cel::parser::Macro;
use cel::{DeclarationError, Env};

pub(super) fn extension(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_macro(Macro::receiver("bind", 3, |helper, target, args| {
        // Only on `cel`: a `bind` on another target is a call as written.
        if !matches!(target.as_ref().map(|t| &t.expr), Some(Expr::Ident(n)) if n == "cel") {
            return Ok(None);
        }
        let (Some(result), Some(init), Some(name)) = (args.pop(), args.pop(), args.pop()) else {
            return Ok(None);
        };
        let Expr::Ident(name) = name.expr else {
            return Err(helper.new_error(
                name.id,
                "cel.bind() variable names must be simple identifiers",
            ));
        };
        let empty = helper.next_expr(Expr::List(ListExpr {
            elements: Vec::new(),
            optional_indices: Vec::new(),
        }));
        let never = helper.next_expr(Expr::Literal(LiteralValue::Boolean(false.into())));
        let step = helper.next_expr(Expr::Ident(name.clone()));
        Ok(Some(helper.next_expr(Expr::Comprehension(Box::new(
            ComprehensionExpr {
                iter_range: empty,
                iter_var: "#unused".to_string(),
                iter_var2: None,
                accu_var: name,
                accu_init: init,
                loop_cond: never,
                loop_step: step,
                result,
            },
        )))))
    }))
}
