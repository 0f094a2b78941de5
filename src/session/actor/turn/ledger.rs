//! Which prompts a claude `result` answers. claude takes user messages while it works: those
//! that queue up run as one turn, one may be folded into the running turn between tool rounds,
//! and a steer cuts the running generation short, which ends that cycle with a `result` of its own
//! before the steered one runs. So results and prompts do not pair one to one; this ledger keeps
//! every user message we wrote and still wait on, each owned by one prompt, and says when a
//! prompt has nothing left outstanding. Pure: the session acts on what it says.

/// What a message is to the prompt that owns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sent {
    /// The prompt's own text (claude runs these in the order they came).
    Prompt,
    /// A steer into the prompt's turn (claude takes it ahead of what waits).
    Steer,
}

#[derive(Debug)]
struct Message {
    uuid: String,
    owner: u64,
    sent: Sent,
    /// How many results claude had given when this message was written.
    results_before: u64,
}

/// The user messages claude has not answered yet, in the order they were written.
#[derive(Debug, Default)]
pub(super) struct Ledger {
    waiting: Vec<Message>,
    results: u64,
}

impl Ledger {
    /// A message written to claude for prompt `owner`.
    pub(super) fn wrote(&mut self, owner: u64, uuid: String, sent: Sent) {
        self.waiting.push(Message {
            uuid,
            owner,
            sent,
            results_before: self.results,
        });
    }

    /// A `result`, naming the messages it answered (`named`), or naming none (`None`: a claude
    /// that does not say). Returns whether it answered any of ours; one that names only messages
    /// we never wrote, or a turn claude started on its own (`autonomous`) naming none, answers
    /// nothing.
    pub(super) fn result(&mut self, named: Option<&[String]>, autonomous: bool) -> bool {
        let before = self.waiting.len();
        let results_before = self.results;
        self.results += 1;
        match named.filter(|uuids| !uuids.is_empty()) {
            Some(uuids) => {
                if !self.waiting.iter().any(|m| uuids.contains(&m.uuid)) {
                    return false;
                }
                // Prompts run in the order they came: one named means the prompts before it
                // are done too (a steer, taken ahead of them, says nothing of them).
                let last_prompt = self
                    .waiting
                    .iter()
                    .rposition(|m| m.sent == Sent::Prompt && uuids.contains(&m.uuid));
                let mut index = 0;
                self.waiting.retain(|m| {
                    let before_named = last_prompt.is_some_and(|last| index < last);
                    let answered =
                        uuids.contains(&m.uuid) || (before_named && m.sent == Sent::Prompt);
                    index += 1;
                    !answered
                });
            }
            None if autonomous => return false,
            None => {
                // Without names: the oldest message is answered, and so is every message that
                // was already waiting when the previous result came, since claude takes all it
                // has queued into the turn it starts next.
                let mut first = true;
                self.waiting.retain(|m| {
                    let answered = first || m.results_before < results_before;
                    first = false;
                    !answered
                });
            }
        }
        self.waiting.len() < before
    }

    /// Whether prompt `owner` has a message claude has not answered yet.
    pub(super) fn waits_on(&self, owner: u64) -> bool {
        self.waiting.iter().any(|m| m.owner == owner)
    }

    /// Forgets prompt `owner`'s messages (it was answered otherwise: cancelled, failed).
    pub(super) fn forget(&mut self, owner: u64) {
        self.waiting.retain(|m| m.owner != owner);
    }

    /// Forgets everything: the claude these messages went to is gone.
    pub(super) fn clear(&mut self) {
        self.waiting.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    enum Step {
        Wrote(u64, &'static str, Sent),
        /// A result naming these uuids (`None`: naming none); then the owners still waited on.
        Result(Option<&'static [&'static str]>, bool, &'static [u64]),
        /// The same for a turn claude started on its own.
        Autonomous(Option<&'static [&'static str]>, bool, &'static [u64]),
    }
    use Sent::{Prompt, Steer};
    use Step::{Autonomous, Result, Wrote};

    fn play(steps: &[Step]) {
        let mut ledger = Ledger::default();
        for (n, step) in steps.iter().enumerate() {
            match step {
                Wrote(owner, uuid, sent) => ledger.wrote(*owner, (*uuid).into(), *sent),
                Result(named, ours, waiting) | Autonomous(named, ours, waiting) => {
                    let named: Option<Vec<String>> =
                        named.map(|u| u.iter().map(|s| (*s).to_owned()).collect());
                    let autonomous = matches!(step, Autonomous(..));
                    assert_eq!(
                        ledger.result(named.as_deref(), autonomous),
                        *ours,
                        "step {n}"
                    );
                    let left: Vec<u64> = (1..=6).filter(|o| ledger.waits_on(*o)).collect();
                    assert_eq!(left, *waiting, "step {n}: {ledger:?}");
                }
            }
        }
    }

    #[test]
    fn results_answer_the_prompts_they_name_or_claudes_queue_order() {
        let cases: &[(&str, &[Step])] = &[
            (
                "one prompt, one result",
                &[Wrote(1, "a", Prompt), Result(Some(&["a"]), true, &[])],
            ),
            (
                "two queued behind the first run as one turn (the pinned claude)",
                &[
                    Wrote(1, "a", Prompt),
                    Wrote(2, "b", Prompt),
                    Wrote(3, "c", Prompt),
                    Result(Some(&["a"]), true, &[2, 3]),
                    Result(Some(&["b", "c"]), true, &[]),
                ],
            ),
            (
                "the same without names (an older claude): queued ones go with the next result",
                &[
                    Wrote(1, "a", Prompt),
                    Wrote(2, "b", Prompt),
                    Wrote(3, "c", Prompt),
                    Result(None, true, &[2, 3]),
                    Result(None, true, &[]),
                ],
            ),
            (
                "without names, one written after a result waits for the one after",
                &[
                    Wrote(1, "a", Prompt),
                    Wrote(2, "b", Prompt),
                    Result(None, true, &[2]),
                    Wrote(3, "c", Prompt),
                    Result(None, true, &[3]),
                    Result(None, true, &[]),
                ],
            ),
            (
                "a queued prompt folded into the running turn",
                &[
                    Wrote(1, "a", Prompt),
                    Wrote(2, "b", Prompt),
                    Result(Some(&["a", "b"]), true, &[]),
                ],
            ),
            (
                "a steer: the cut-short cycle's result leaves the prompt open until the steer's",
                &[
                    Wrote(1, "a", Prompt),
                    Wrote(1, "s", Steer),
                    Result(Some(&["a"]), true, &[1]),
                    Result(Some(&["s"]), true, &[]),
                ],
            ),
            (
                "a steer without names: two results",
                &[
                    Wrote(1, "a", Prompt),
                    Wrote(1, "s", Steer),
                    Result(None, true, &[1]),
                    Result(None, true, &[]),
                ],
            ),
            (
                "a steer goes ahead of a queued prompt; naming the prompt does not answer it",
                &[
                    Wrote(1, "a", Prompt),
                    Wrote(2, "b", Prompt),
                    Wrote(1, "s", Steer),
                    Result(Some(&["a"]), true, &[1, 2]),
                    Result(Some(&["s"]), true, &[2]),
                    Result(Some(&["b"]), true, &[]),
                ],
            ),
            (
                "a result naming only messages we never wrote answers nothing",
                &[
                    Wrote(1, "a", Prompt),
                    Result(Some(&["someone-else"]), false, &[1]),
                    Result(Some(&["a"]), true, &[]),
                ],
            ),
            ("a result with nothing waiting", &[Result(None, false, &[])]),
            (
                "a background job's follow-up turn answers no prompt",
                &[
                    Wrote(1, "a", Prompt),
                    Autonomous(None, false, &[1]),
                    Result(Some(&["a"]), true, &[]),
                ],
            ),
            (
                "unless it names one it took in",
                &[Wrote(1, "a", Prompt), Autonomous(Some(&["a"]), true, &[])],
            ),
            (
                "an empty list counts as no names",
                &[Wrote(1, "a", Prompt), Result(Some(&[]), true, &[])],
            ),
        ];
        for (what, steps) in cases {
            eprintln!("case: {what}");
            play(steps);
        }
    }

    #[test]
    fn forgotten_prompts_are_not_waited_on() {
        let mut ledger = Ledger::default();
        ledger.wrote(1, "a".into(), Sent::Prompt);
        ledger.wrote(2, "b".into(), Sent::Prompt);
        ledger.forget(2);
        assert!(ledger.waits_on(1));
        assert!(!ledger.waits_on(2));
        ledger.clear();
        assert!(!ledger.waits_on(1));
        assert!(!ledger.result(None, false));
    }
}
