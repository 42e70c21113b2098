#pragma once
// What the window shows first when there is no database yet: what noisefloor is for and the three
// ways to begin (design a run, open a database, import results another tool measured).

#include <QWidget>

namespace nf::ui {

class StartPage : public QWidget {
    Q_OBJECT

public:
    explicit StartPage(const QString& databasePath, QWidget* parent = nullptr);

signals:
    void designRequested();
    void openRequested();
};

}  // namespace nf::ui
