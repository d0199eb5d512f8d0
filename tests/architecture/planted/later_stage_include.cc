// Planted by Architecture.*FailsOnAPlanted* in a scratch copy of the tree:
// the merge reaching up to an analysis made from it.
#include "analysis/narrative.h"
