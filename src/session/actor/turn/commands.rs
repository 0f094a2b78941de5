//! The commands the prompt box offers: claude's (from its `initialize` reply) and claude-acp's
//! own, with claude's skills marked as skills for an editor that lists them apart (schema 1.20's
//! `session.commands.skill`). claude names its skills only in `system/init`, at a turn's start,
//! so the list is told again once they are known.

use crate::domain::{SessionUpdate, SlashCommand};
use crate::session::actor::ctx::SessionContext;

#[derive(Default)]
pub(in crate::session::actor) struct OfferedCommands {
    /// What the editor was last told, without the skill marks.
    commands: Vec<SlashCommand>,
    /// claude's skills, by name, as its last `system/init` said.
    skills: Vec<String>,
}

impl OfferedCommands {
    /// Offers `commands` (a claude started and said them).
    pub(in crate::session::actor) fn offer(
        &mut self,
        ctx: &SessionContext,
        commands: Vec<SlashCommand>,
    ) {
        self.commands = commands;
        self.tell(ctx);
    }

    /// claude's `system/init` named its skills: told again if that marks others, for an editor
    /// that lists skills (for any other the list is the same).
    pub(in crate::session::actor) fn skills_reported(
        &mut self,
        ctx: &SessionContext,
        skills: Vec<String>,
    ) {
        if !ctx.editor.supports_skill_commands() || skills == self.skills {
            return;
        }
        self.skills = skills;
        if !self.commands.is_empty() {
            self.tell(ctx);
        }
    }

    fn tell(&self, ctx: &SessionContext) {
        let lists_skills = ctx.editor.supports_skill_commands();
        let commands = self
            .commands
            .iter()
            .map(|command| SlashCommand {
                skill: lists_skills && self.skills.contains(&command.name),
                ..command.clone()
            })
            .collect();
        ctx.tell_editor(SessionUpdate::AvailableCommands { commands });
    }
}
