//! Permission asks through the adapter with the stand-in: the stdio channel, every option and
//! reply shape, AskUserQuestion, ExitPlanMode, and the fallback when the stdio channel breaks.

mod ask_user_question;
mod exit_plan_mode;
mod fallback;
mod options;
mod stdio;
