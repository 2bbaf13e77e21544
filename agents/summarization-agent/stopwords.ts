/**
 * Words that carry grammar, not subject matter. They still count as words (word counts,
 * sentence length) but never as terms, so they cannot make a sentence look important or
 * become the topic. Includes the hedging and connective words reports lean on ("also",
 * "however", "would") because they are frequent in every document and distinctive in none.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  `a about above across after afterwards again against all almost alone along already also although always am
  among amongst an and another any anyhow anyone anything anyway anywhere are around as at back be became because
  become becomes becoming been before beforehand behind being below beside besides between beyond both but by can
  cannot could did do does doing done down due during each eg either else elsewhere enough etc even ever every
  everyone everything everywhere except few for former formerly from further get gets got had has have having he
  hence her here hereafter hereby herein hers herself him himself his how however i ie if in indeed into is it its
  itself just last latter least less let like made make makes many may me meanwhile might mine more moreover most
  mostly much must my myself namely neither never nevertheless next no nobody none nor not nothing now nowhere of
  off often on once one only onto or other others otherwise our ours ourselves out over own per perhaps please put
  quite rather re really same say says said see seem seemed seeming seems several she should since so some somehow
  someone something sometime sometimes somewhere still such than that the their theirs them themselves then thence
  there thereafter thereby therefore therein thereupon these they this those though through throughout thru thus to
  together too toward towards under until up upon us use used uses using very via was we well were what whatever when
  whence whenever where whereafter whereas whereby wherein whereupon wherever whether which while whither who whoever
  whole whom whose why will with within without would yet you your yours yourself yourselves new
  s t d ll m o re ve y don doesn didn isn wasn aren weren won wouldn shouldn couldn can't won't don't doesn't didn't
  isn't wasn't aren't weren't it's that's there's we're they're we've they've i'm i've i'd we'll they'll`
    .split(/\s+/)
    .filter((word) => word !== ''),
);
