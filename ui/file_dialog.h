#pragma once
// File dialogs that never open the files they list.
//
// A stock dialog opens every listed file to guess its type (QMimeDatabase content sniffing for
// the type column and the icon), and a native one does the same in a toolkit of its own. Opening
// and closing the database, its -wal or its -shm drops this process's SQLite locks on it
// (ui/store.h). These dialogs are Qt's own widget dialogs (never native), resolve no symlinks and
// use an icon provider that names a file's type by whether it is a directory, so listing a
// directory is stat() only.

#include <QString>

#include <functional>

class QFileDialog;
class QWidget;

namespace nf::ui {

// An existing file to open; "" when cancelled.
QString chooseFileToOpen(QWidget* parent, const QString& title, const QString& directory, const QString& filters);
// A file to write, with `suggested` (a name or a path) preselected; "" when cancelled. The first
// filter's suffix is added when the name has none.
QString chooseFileToSave(QWidget* parent, const QString& title, const QString& suggested, const QString& filters);

// Called with each dialog just before it runs (tests drive and cancel it with this).
void setFileDialogObserver(std::function<void(QFileDialog*)> observer);

}  // namespace nf::ui
