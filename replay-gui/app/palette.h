// The replay's colours, in one place.
#pragma once

#include <QColor>

namespace radar::app::colors {
inline const QColor kBackground{250, 250, 247};
inline const QColor kProcess{226, 234, 244};
inline const QColor kActive{255, 205, 110};  // RADAR: the process changes colour during its event
inline const QColor kActiveBorder{176, 96, 0};
inline const QColor kBlocked{240, 222, 222};
inline const QColor kUnrecorded{232, 232, 232};  // a program radar could not record (dashed border)
inline const QColor kBorder{70, 80, 95};
inline const QColor kHostFrame{120, 130, 150};  // a host: its boxes framed together
inline const QColor kHostFill{238, 240, 236};
inline const QColor kText{20, 24, 30};
inline const QColor kInputPort{90, 150, 90};
inline const QColor kOutputPort{90, 110, 170};
inline const QColor kQueued{60, 110, 200};
inline const QColor kTravelling{230, 120, 20};
inline const QColor kConsumed{150, 190, 240};
inline const QColor kUndelivered{200, 60, 60};
inline const QColor kSelected{220, 0, 120};
inline const QColor kChannelLine{180, 185, 195};
inline const QColor kPast{40, 140, 70};
inline const QColor kFuture{150, 60, 180};
inline const QColor kPath{200, 30, 30};              // a critical path
inline const QColor kCollective{20, 150, 140, 150};  // an MPI collective across its ranks
inline const QColor kDeadlock{215, 25, 25};          // a deadlock's wait-for cycle
inline const QColor kSync{190, 110, 20};             // a release to the acquisition it let go on
inline const QColor kSearchMatch{255, 240, 120};     // what Find found, in a message's bytes
inline const QColor kParted{230, 0, 160};            // where two runs part (the diff view)
}  // namespace radar::app::colors
