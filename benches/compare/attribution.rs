//! The arithmetic of the attribution: the tap's log of one claude (what passed between claude-acp
//! and claude, and when) and the bench editor's stamps of the same turns, matched line for line,
//! give the time each relay spent inside claude-acp. All times are ns on one machine-wide clock.

use crate::tap::{Dir, Record};

/// One prompt as the tap saw it: the user line to claude, claude's text deltas, its `result`.
#[derive(Debug, Clone, PartialEq)]
pub struct TapTurn {
    pub user_at: u64,
    pub deltas: Vec<(u64, String)>,
    pub result_at: u64,
}

/// One prompt as the editor saw it: `session/prompt` written, the `agent_message_chunk`s read
/// (time, text), the answer read.
#[derive(Debug, Clone, PartialEq)]
pub struct EditorTurn {
    pub sent: u64,
    pub chunks: Vec<(u64, String)>,
    pub answered: u64,
}

/// Time inside claude-acp for one prompt, in ns.
#[derive(Debug, Clone, PartialEq)]
pub struct Relays {
    /// `session/prompt` written by the editor -> the user line read by the tap.
    pub prompt: i64,
    /// claude's first text delta handed on by the tap -> the first chunk read by the editor.
    pub first_chunk: i64,
    /// claude's `result` handed on -> the prompt's answer read.
    pub stop: i64,
    /// Each text delta handed on -> the chunk carrying it read, in claude's order.
    pub per_delta: Vec<i64>,
    /// The whole prompt as the editor saw it: written -> answered.
    pub turn: i64,
}

/// Splits a tap log into turns: each user line to claude opens one, claude's next `result` closes
/// it. A turn without its `result` yet is left out.
pub fn tap_turns(records: &[Record]) -> Vec<TapTurn> {
    let mut sorted: Vec<&Record> = records.iter().collect();
    sorted.sort_by_key(|r| r.at);
    let mut turns = Vec::new();
    let mut open: Option<TapTurn> = None;
    for record in sorted {
        let kind = record.kind.as_deref();
        match (record.dir, kind) {
            (Some(Dir::ToClaude), Some("user")) if open.is_none() => {
                open = Some(TapTurn {
                    user_at: record.at,
                    deltas: Vec::new(),
                    result_at: 0,
                });
            }
            (Some(Dir::FromClaude), Some("stream_event")) => {
                if let (Some(turn), Some(text)) = (open.as_mut(), &record.text) {
                    turn.deltas.push((record.at, text.clone()));
                }
            }
            (Some(Dir::FromClaude), Some("result")) => {
                if let Some(mut turn) = open.take() {
                    turn.result_at = record.at;
                    turns.push(turn);
                }
            }
            _ => {}
        }
    }
    turns
}

/// Pairs each of claude's text deltas with the editor chunk that carried it: a chunk's text must
/// be one delta's or several consecutive deltas' together (an adapter may join them), in order,
/// all of them. Returns, per delta, chunk read -> delta handed on.
pub fn match_deltas(
    deltas: &[(u64, String)],
    chunks: &[(u64, String)],
) -> Result<Vec<i64>, String> {
    let mut relays = Vec::with_capacity(deltas.len());
    let mut next = 0;
    for (index, (read_at, text)) in chunks.iter().enumerate() {
        let mut carried = String::new();
        let first = next;
        while carried.len() < text.len() && next < deltas.len() {
            carried.push_str(&deltas[next].1);
            next += 1;
        }
        if carried != *text || next == first {
            return Err(format!(
                "chunk {index} {text:?} is not claude's deltas {first}..{next} ({carried:?})"
            ));
        }
        relays.extend(
            deltas[first..next]
                .iter()
                .map(|(at, _)| diff(*read_at, *at)),
        );
    }
    if next != deltas.len() {
        return Err(format!(
            "{} of claude's {} deltas never reached the editor",
            deltas.len() - next,
            deltas.len()
        ));
    }
    Ok(relays)
}

/// The relays of one prompt: the tap's view of it against the editor's.
pub fn relays(tap: &TapTurn, editor: &EditorTurn) -> Result<Relays, String> {
    let per_delta = match_deltas(&tap.deltas, &editor.chunks)?;
    let first_chunk = *per_delta.first().ok_or("a turn without text deltas")?;
    Ok(Relays {
        prompt: diff(tap.user_at, editor.sent),
        first_chunk,
        stop: diff(editor.answered, tap.result_at),
        per_delta,
        turn: diff(editor.answered, editor.sent),
    })
}

/// One cold start on the critical path: the editor spawns claude-acp, which starts claude (the
/// tap) in the background during `session/new`; claude's start-up overlaps the editor's requests.
#[derive(Debug, Clone, PartialEq)]
pub struct ColdStart {
    /// claude-acp spawned -> it started claude: tap start, less the tap's own load time.
    pub claude_started: i64,
    /// The tap's spawn of claude returned, relative to `session/new`'s answer (negative: before).
    pub claude_vs_session_new: i64,
    /// How long claude sat ready (it had answered claude-acp's `initialize`) before the user
    /// line reached it; 0 when the line was waiting for claude, as it is for claude alone.
    pub idle_wait: i64,
    /// What claude-acp adds to the whole way: `claude_started + idle_wait + first_chunk`.
    pub adapter_adds: i64,
    /// The rest of the whole way: claude's own start-up and work (the mock's included).
    pub claude_share: i64,
}

/// The editor's stamps of one cold run (spawn returned, `session/new` answered, the first chunk
/// read) and the tap's log of it; `tap_load` is the tap's own exec-to-main time, measured apart.
pub fn cold_start(
    spawned: u64,
    session_new_answered: u64,
    first_chunk_read: u64,
    records: &[Record],
    relays: &Relays,
    tap_load: i64,
) -> Result<ColdStart, String> {
    let at = |dir: Dir| {
        records
            .iter()
            .find(|r| r.dir == Some(dir))
            .map(|r| r.at)
            .ok_or(format!("no {dir:?} in the tap's log"))
    };
    let (tap_start, claude_spawned) = (at(Dir::Start)?, at(Dir::Spawned)?);
    let user_at = at_user(records).ok_or("no user line in the tap's log")?;
    let claude_started = diff(tap_start, spawned) - tap_load;
    let idle_wait = ready_at(records).map_or(0, |ready| diff(user_at, ready).max(0));
    let adapter_adds = claude_started + idle_wait + relays.first_chunk;
    Ok(ColdStart {
        claude_started,
        claude_vs_session_new: diff(claude_spawned, session_new_answered),
        idle_wait,
        adapter_adds,
        claude_share: diff(first_chunk_read, spawned) - adapter_adds,
    })
}

fn at_user(records: &[Record]) -> Option<u64> {
    records
        .iter()
        .filter(|r| r.dir == Some(Dir::ToClaude) && r.kind.as_deref() == Some("user"))
        .map(|r| r.at)
        .min()
}

/// When claude answered the first control request claude-acp sent it (its `initialize`): from
/// then on claude was reading its stdin.
fn ready_at(records: &[Record]) -> Option<u64> {
    let asked = records
        .iter()
        .filter(|r| r.dir == Some(Dir::ToClaude) && r.kind.as_deref() == Some("control_request"))
        .min_by_key(|r| r.at)?;
    records
        .iter()
        .find(|r| {
            r.dir == Some(Dir::FromClaude)
                && r.kind.as_deref() == Some("control_response")
                && r.request_id == asked.request_id
        })
        .map(|r| r.at)
}

/// How many reads of claude's stdout brought `deltas` (the tap stamps every line a read completes
/// with that read's time): claude's deltas come in bursts when this is well under their number.
pub fn reads(deltas: &[(u64, String)]) -> usize {
    let mut times: Vec<u64> = deltas.iter().map(|(at, _)| *at).collect();
    times.dedup();
    times.len()
}

/// The `q` quantile (0..=1) of `values`, nearest rank; NaN when empty.
pub fn quantile(values: &[i64], q: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64
}

fn diff(later: u64, earlier: u64) -> i64 {
    later as i64 - earlier as i64
}
