//! Looking after an index: `doctor` checks its health (Healthy / Degraded / Corrupted) and
//! repairs what it can under the index lock; `gc` forgets deleted branches and content no
//! branch uses. It sits above `index`, whose lock, verification and run it uses, beside
//! `search` and `share`.

pub mod doctor;
pub mod gc;
