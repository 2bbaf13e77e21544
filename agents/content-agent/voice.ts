import type { ContentType, Style } from './input.js';

/** Sentences a section opens with, or says when the description has nothing for it. */
export type Topic = 'impact' | 'action' | 'usage' | 'status' | 'progress' | 'details' | 'purpose';

type Phrase = (name: string) => string;

const OPENINGS: Readonly<Record<ContentType, Readonly<Record<Style, Phrase>>>> = {
  'operator-notice': {
    'client-facing': (n) => `We want to keep you informed about ${n}.`,
    technical: (n) => `This notice concerns ${n}.`,
    internal: (n) => `Heads-up for the team: this notice is about ${n}.`,
  },
  readme: {
    'client-facing': (n) => `This page explains ${n} in plain terms, so you can decide whether it fits your needs.`,
    technical: (n) => `This document describes ${n}.`,
    internal: (n) => `This README is our team's reference for ${n}.`,
  },
  'release-note': {
    'client-facing': (n) => `Here is what this release of ${n} brings you.`,
    technical: (n) => `This release note covers ${n}.`,
    internal: (n) => `Release note for the team on ${n}.`,
  },
  'status-update': {
    'client-facing': (n) => `Here is where things stand with ${n}.`,
    technical: (n) => `This update reports the current state of ${n}.`,
    internal: (n) => `Here is our latest status on ${n}.`,
  },
  faq: {
    'client-facing': (n) => `This page answers the questions you are most likely to have about ${n}.`,
    technical: (n) => `The answers below are drawn from the description of ${n}.`,
    internal: (n) => `We collected these answers about ${n} for the team.`,
  },
};

/**
 * What to say when the description is silent on a topic. The text says so plainly rather than
 * inventing an impact, an instruction or a status the source never gave.
 */
const SILENCES: Readonly<Record<Topic, Readonly<Record<Style, Phrase>>>> = {
  impact: {
    'client-facing': (n) => `The description of ${n} does not mention any effect on you.`,
    technical: (n) => `The source states no impact for ${n}.`,
    internal: (n) => `Nothing in the description of ${n} points to an impact; we confirm with its owner before saying otherwise.`,
  },
  action: {
    'client-facing': (n) => `The description of ${n} does not ask you to do anything.`,
    technical: (n) => `The source lists no required action for ${n}.`,
    internal: (n) => `No action for us is stated in the description of ${n}; we check with its owner before planning work.`,
  },
  usage: {
    'client-facing': (n) => `The description of ${n} does not explain how to use it yet.`,
    technical: (n) => `Usage of ${n} is not documented in the source.`,
    internal: (n) => `We have no usage notes for ${n} yet; we add them once they exist.`,
  },
  status: {
    'client-facing': (n) => `The description of ${n} does not say how far along it is.`,
    technical: (n) => `The source does not state the status of ${n}.`,
    internal: (n) => `The status of ${n} is not stated in its description; we confirm it before sharing.`,
  },
  progress: {
    'client-facing': (n) => `The description of ${n} does not report progress yet.`,
    technical: (n) => `The source reports no progress for ${n}.`,
    internal: (n) => `No progress on ${n} is recorded in its description yet.`,
  },
  details: {
    'client-facing': (n) => `That is everything the description of ${n} covers.`,
    technical: (n) => `The source contains no further detail on ${n}.`,
    internal: (n) => `That is all the description of ${n} tells us.`,
  },
  purpose: {
    'client-facing': (n) => `Beyond what is said above, the description of ${n} does not go into detail.`,
    technical: (n) => `The source gives no more about what ${n} does.`,
    internal: (n) => `Its description says nothing more about what ${n} does.`,
  },
};

/** The closing line of the reference section: where the text came from. */
const PROVENANCE: Readonly<Record<Style, Phrase>> = {
  'client-facing': (n) => `Everything above comes from this description of ${n}:`,
  technical: (n) => `This text was written from the following description of ${n}:`,
  internal: (n) => `Source material for this text, the description of ${n} as given:`,
};

export function opening(type: ContentType, style: Style, name: string): string {
  return OPENINGS[type][style](name);
}

export function silence(topic: Topic, style: Style, name: string): string {
  return SILENCES[topic][style](name);
}

export function provenance(style: Style, name: string): string {
  return PROVENANCE[style](name);
}

const AUDIENCE_SUBJECT = /^(?:all )?(?:users|customers|clients)\s+(?=(?:must|should|need|will|can|cannot|can't|may|have|are|do|don't)\b)/i;
const TEAM_SUBJECT = /^(?:operators|engineers|the team|on-call(?: engineers)?|administrators|admins)\s+(?=(?:must|should|need|will|can|cannot|can't|may|have|are|do|don't)\b)/i;

/**
 * Puts a fact in the voice's person without changing what it says: a client-facing text
 * addresses its readers ("Users must update their tokens" → "You must update your tokens"), an
 * internal one speaks as the team ("Operators should rotate their keys" → "We should rotate our
 * keys"). Technical text keeps the third person of the source.
 */
export function inPerson(sentence: string, style: Style): string {
  if (style === 'client-facing' && AUDIENCE_SUBJECT.test(sentence)) {
    return sentence.replace(AUDIENCE_SUBJECT, 'You ').replace(/\btheir\b/g, 'your').replace(/\bthey\b/g, 'you');
  }
  if (style === 'internal' && TEAM_SUBJECT.test(sentence)) {
    return sentence.replace(TEAM_SUBJECT, 'We ').replace(/\btheir\b/g, 'our').replace(/\bthey\b/g, 'we');
  }
  return sentence;
}
