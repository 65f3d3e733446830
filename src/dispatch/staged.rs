//! The clause a call that staged changes in review mode ends with (SPEC §13).

use crate::tools::{Output, Part};

/// The sentence a call that staged changes ends with, so the model keeps working normally.
pub const STAGED_CLAUSE: &str =
    " (Staged for review: the change reaches disk when the host accepts it.)";

/// Appends [`STAGED_CLAUSE`] to the last text part of `out`. A part that is a JSON object
/// (checkpoint_restore, a captured monitor's answers) gets it as a `"review"` member instead,
/// so the text stays JSON a program can parse.
pub(super) fn tell_staged(mut out: Output) -> Output {
    if let Some(Part::Text(t)) = out
        .content
        .iter_mut()
        .rev()
        .find(|p| matches!(p, Part::Text(_)))
    {
        let object = t.trim_end().ends_with('}')
            && serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(t).is_ok();
        if object {
            let end = t.trim_end().len() - 1;
            let empty = t[..end].trim_end().ends_with('{');
            let member = format!(
                "{}\"review\":{}",
                if empty { "" } else { "," },
                serde_json::Value::from(STAGED_CLAUSE.trim().trim_matches(['(', ')']))
            );
            t.insert_str(end, &member);
        } else {
            t.push_str(STAGED_CLAUSE);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn told(text: &str) -> String {
        match tell_staged(Output::text(text.to_string())).content.pop() {
            Some(Part::Text(t)) => t,
            _ => unreachable!(),
        }
    }

    /// The mutating tools that stage nothing are known once, on their definitions: the
    /// host's accept and reject (they change the staging area itself) and the checkpoint
    /// bookkeeping. A read-only tool never carries the flag (it would mean nothing).
    #[test]
    fn the_tools_that_stage_nothing_are_flagged_on_their_definitions() {
        let mut flagged: Vec<&str> = crate::tools::all()
            .iter()
            .filter(|t| t.unstaged)
            .map(|t| t.name)
            .collect();
        flagged.sort_unstable();
        assert_eq!(
            flagged,
            [
                "checkpoint_create",
                "checkpoint_drop",
                "review_accept",
                "review_reject"
            ]
        );
        assert!(crate::tools::all()
            .iter()
            .filter(|t| t.unstaged)
            .all(|t| t.mutating()));
    }

    #[test]
    fn prose_gets_the_clause_and_json_stays_json() {
        assert_eq!(told("Wrote a.txt"), format!("Wrote a.txt{STAGED_CLAUSE}"));
        let restored: serde_json::Value =
            serde_json::from_str(&told("{\"restored\":[\"a\"],\"n\":1}\n")).unwrap();
        assert_eq!(restored["n"], 1);
        assert_eq!(
            restored["review"],
            "Staged for review: the change reaches disk when the host accepts it."
        );
        let empty: serde_json::Value = serde_json::from_str(&told("{ }")).unwrap();
        assert!(empty["review"].is_string());
        // Braces that are not one object stay prose.
        assert_eq!(
            told("{a} and {b}"),
            format!("{{a}} and {{b}}{STAGED_CLAUSE}")
        );
    }
}
