// Planted by Architecture.*FailsOnAPlanted* in a scratch copy of the tree:
// a stage after the loader that would read a log itself.
#include "log/reader.h"
